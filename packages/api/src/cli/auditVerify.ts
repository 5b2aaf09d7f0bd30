/**
 * `pnpm cli audit verify [--store URL] [--checkpoint FILE --public-key KEY|FILE]`: recompute the hash
 * chain over the whole log; exit 1 naming the first broken position. With a signed checkpoint, also
 * check its signature and that the log still reaches that hash at that position (no truncation).
 */
import fs from 'node:fs';
import { describeVerify, type SignedCheckpoint, verifyChain, verifyCheckpointSignature } from '../audit/index.js';
import { parseFlags } from './args.js';
import { openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';

const readMaybeFile = (v: string) => (fs.existsSync(v) ? fs.readFileSync(v, 'utf8') : v);

export const auditVerify: CliCommand = {
  summary: 'verify the event log hash chain (exit 1 on any break) [--store URL] [--checkpoint FILE --public-key KEY]',
  async run({ env, args }) {
    const { flags } = parseFlags(args);
    let expect: { position: number; hash: string } | undefined;
    if (flags.checkpoint) {
      const cp = JSON.parse(fs.readFileSync(flags.checkpoint, 'utf8')) as SignedCheckpoint;
      const key = flags['public-key'] ? readMaybeFile(flags['public-key']) : cp.publicKey;
      if (!flags['public-key'])
        console.warn('No --public-key given: checking the signature against the key named in the checkpoint itself');
      if (!verifyCheckpointSignature(cp, key)) {
        console.error(`BROKEN: the checkpoint signature does not verify with that public key`);
        return 1;
      }
      console.log(`Checkpoint signature OK: position ${cp.position}, hash ${cp.hash}, signed at ${cp.time}`);
      expect = { position: cp.position, hash: cp.hash };
    }
    const opened = await openAuditStore(env, flags);
    try {
      const started = performance.now();
      const result = await verifyChain(opened.store, {
        expect,
        onProgress: (p) => process.stderr.write(`  verified ${p} events…\n`),
        progressEvery: 100_000,
      });
      console.log(`${describeVerify(result)} (${opened.label}, ${Math.round(performance.now() - started)} ms)`);
      return result.ok ? 0 : 1;
    } finally {
      await opened.close();
    }
  },
};
