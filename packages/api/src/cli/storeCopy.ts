/**
 * `pnpm cli store copy --from URL --to URL`: copy the whole event log between adapters (sqlite:PATH
 * or a data dir, postgres://…, kurrentdb://…), preserving order, positions and hashes, into an empty
 * target, with the members' data keys and the subscribers' checkpoints (SQL to SQL); then verifies
 * the copy. Rebuild the target's read models with `projections rebuild`.
 */
import { describeVerify, verifyChain } from '../audit/index.js';
import { copyStore } from '../eventstore/copyStore.js';
import { openStoreUrl } from '../eventstore/storeUrl.js';
import { copyDataKeys } from '../shredding/index.js';
import { parseFlags } from './args.js';
import type { CliCommand } from './command.js';

export const storeCopy: CliCommand = {
  summary: 'copy the whole event log: --from URL --to URL (target must be empty)',
  async run({ args }) {
    const { flags } = parseFlags(args);
    if (!flags.from || !flags.to) {
      console.error('Usage: store copy --from sqlite:PATH|DATA_DIR|postgres://…|kurrentdb://… --to URL');
      return 2;
    }
    try {
      return await copy(flags.from, flags.to);
    } catch (err) {
      // Unreachable servers, refused targets and broken chains are operator errors, not crashes.
      console.error(`store copy failed: ${(err as Error).message ?? String(err)}`);
      return 1;
    }
  },
};

async function copy(fromUrl: string, toUrl: string): Promise<number> {
  const from = await openStoreUrl(fromUrl, { create: false });
  try {
    const to = await openStoreUrl(toUrl);
    try {
      const started = performance.now();
      const r = await copyStore(from, to, {
        onProgress: (n) => n % 50_000 === 0 && process.stderr.write(`  copied ${n} events…\n`),
        copyDataKeys,
      });
      console.log(
        `Copied ${r.events} events, ${r.dataKeys} data keys and ${r.checkpoints ?? 0} subscriber checkpoints from ${from.label} to ${to.label} in ${Math.round(performance.now() - started)} ms`,
      );
      if (r.checkpoints === null && to.db)
        console.log(
          'Note: the source keeps no subscriber checkpoints, so a server on the copy will run every side effect of the copied history again (mails, transcodes) unless the checkpoints are copied from the source server’s database.',
        );
      const v = await verifyChain(to.store);
      console.log(`Target: ${describeVerify(v)}`);
      return v.ok ? 0 : 1;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
