/**
 * `pnpm cli audit checkpoint [--store URL] [--out FILE]`: verify the chain, then sign its head
 * (position, hash, time) with AUDIT_SIGNING_KEY (Ed25519) and print the signed checkpoint as JSON.
 * `pnpm cli audit keygen` prints a fresh key pair (PEM) to put in the config and give to auditors.
 */
import fs from 'node:fs';
import { describeVerify, generateSigningKeys, signCheckpoint, verifyChain } from '../audit/index.js';
import { parseFlags } from './args.js';
import { openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';

export const auditCheckpoint: CliCommand = {
  summary: 'sign the verified head of the log with AUDIT_SIGNING_KEY [--store URL] [--out FILE]',
  async run({ env, args }) {
    const { flags } = parseFlags(args);
    if (!env.AUDIT_SIGNING_KEY) {
      console.error('AUDIT_SIGNING_KEY is not set (an Ed25519 private key; `pnpm cli audit keygen` makes one)');
      return 2;
    }
    const opened = await openAuditStore(env, flags);
    try {
      const result = await verifyChain(opened.store);
      if (!result.ok) {
        console.error(`Refusing to sign a broken log: ${describeVerify(result)}`);
        return 1;
      }
      const signed = signCheckpoint(
        { position: result.headPosition, hash: result.headHash, time: new Date().toISOString() },
        env.AUDIT_SIGNING_KEY.replace(/\\n/g, '\n'),
      );
      const text = `${JSON.stringify(signed, null, 2)}\n`;
      if (flags.out) fs.writeFileSync(flags.out, text);
      process.stdout.write(text);
      return 0;
    } finally {
      await opened.close();
    }
  },
};

export const auditKeygen: CliCommand = {
  summary: 'print a new Ed25519 key pair for checkpoint signing (PEM)',
  async run() {
    const { privateKey, publicKey } = generateSigningKeys();
    process.stdout.write(`# AUDIT_SIGNING_KEY (keep secret):\n${privateKey}\n# public key (give to auditors):\n${publicKey}`);
    return 0;
  },
};
