/**
 * `pnpm cli audit bitcoin-check [--node URL] [--cookie FILE] [--store URL]`: re-checks every verified
 * payment's chain evidence against a Bitcoin node (default BITCOIN_RPC_URL, any node of Bitcoin
 * Core's JSON-RPC: the auditor's own, independent of the site). Exits 1 listing each payment that
 * does not hold (audit/bitcoinCheck.ts).
 */
import { bitcoinCheck, describeBitcoinCheck, verifiedEvidence } from '../audit/index.js';
import { rpcChainSource } from '../billing/index.js';
import { parseFlags } from './args.js';
import { openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';

export const auditBitcoinCheck: CliCommand = {
  summary: "re-check every verified payment's chain evidence against a Bitcoin node [--node URL] [--cookie FILE]",
  async run({ env, site, args }) {
    const { flags } = parseFlags(args);
    const url = flags.node ?? env.BITCOIN_RPC_URL;
    if (!url) {
      console.error('Usage: audit bitcoin-check --node http://user:pass@host:8332 [--cookie FILE] (or set BITCOIN_RPC_URL)');
      return 2;
    }
    const cookieFile = flags.cookie ?? (flags.node ? undefined : env.BITCOIN_RPC_COOKIE_FILE);
    const opened = await openAuditStore(env, flags);
    try {
      const { evidenced, withoutEvidence } = await verifiedEvidence(opened.store.streamAll({ batchSize: 1000 }), site.bitcoin.address);
      const rows = await bitcoinCheck(evidenced, rpcChainSource({ url, cookieFile }), site.bitcoin.network);
      const { lines, failed } = describeBitcoinCheck(rows, withoutEvidence);
      for (const line of lines) console.log(line);
      return failed > 0 ? 1 : 0;
    } finally {
      await opened.close();
    }
  },
};
