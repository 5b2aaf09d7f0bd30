/**
 * `pnpm cli media copy --to s3://BUCKET[/PREFIX] | local | DIR [--from …]`: moves an existing site's
 * media between the local disk and object storage (or between buckets), checksummed and resumable
 * (media/copy/copyMedia.ts). The source defaults to the site's current store (MEDIA_STORE,
 * DATA_DIR); S3 sides use the AWS_* variables. The source is never deleted: the operator switches
 * MEDIA_STORE to the target and restarts, and removes the old media when satisfied.
 */
import path from 'node:path';
import type { Env } from '../config/env.js';
import { envSchema } from '../config/env.js';
import { type CopyProgress, copyMedia, type MediaStorage, MediaStoreError, openMediaStore } from '../media/index.js';
import { parseFlags } from './args.js';
import type { CliCommand } from './command.js';

const USAGE =
  'Usage: media copy --to s3://BUCKET[/PREFIX] | local | DIR [--from s3://BUCKET[/PREFIX] | local | DIR] [--concurrency N]\n' +
  '  --from defaults to the site’s media store (MEDIA_STORE; local means DATA_DIR/media); local is DATA_DIR, DIR another data directory (its media/ folder).';
const PROGRESS_EVERY_MS = 2000;

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const rate = (bytes: number, ms: number) => `${(bytes / 1e6 / Math.max(ms / 1000, 0.001)).toFixed(1)} MB/s`;

class UsageError extends Error {
  constructor(
    message: string,
    /** Bad arguments get the usage; a store that cannot be used only the reason. */
    readonly showUsage = true,
  ) {
    super(message);
  }
}

/** `local`, a directory or `s3://…` → its endpoint, and what MEDIA_STORE/DATA_DIR name it. */
async function endpointFor(spec: string, flag: string, env: Env): Promise<{ endpoint: MediaStorage; store: string; dataDir?: string }> {
  if (spec.startsWith('s3:')) {
    if (!envSchema.shape.MEDIA_STORE.safeParse(spec).success)
      throw new UsageError(
        `--${flag} ${spec}: not s3://BUCKET[/PREFIX] (a bucket name of 3-63 lower-case letters, digits, dots or dashes)`,
      );
    return { endpoint: await openMediaStore({ ...env, MEDIA_STORE: spec }), store: spec };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw new UsageError(`--${flag} ${spec}: only s3://, local or a directory`);
  const dataDir = spec === 'local' ? env.DATA_DIR : path.resolve(spec);
  return { endpoint: await openMediaStore({ DATA_DIR: dataDir }), store: 'local', dataDir };
}

async function checked(side: MediaStorage, flag: string): Promise<void> {
  try {
    await side.check();
  } catch (err) {
    // The store's own messages name MEDIA_STORE, which a --to target is not.
    const reason = (err as Error).message.replace(/^MEDIA_STORE: /, '');
    throw new UsageError(`--${flag} ${side.location}: ${reason}`, false);
  }
}

/** Only the tests slow a copy down (to interrupt it at a known point). */
function testPauseMs(): number {
  return process.env.NODE_ENV === 'test' ? Number(process.env.MEDIA_COPY_TEST_PAUSE_MS ?? 0) : 0;
}

function progressLine(p: CopyProgress): string {
  return `  ${p.done}/${p.total} objects: ${p.copied} copied (${mib(p.copiedBytes)}), ${p.skipped} already there (${mib(p.skippedBytes)}), ${rate(p.copiedBytes, p.elapsedMs)}`;
}

async function run(env: Env, flags: Record<string, string>): Promise<number> {
  if (!flags.to || flags.to === 'true') throw new UsageError('--to is missing');
  const concurrency = flags.concurrency ? Number(flags.concurrency) : 4;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError('--concurrency: a whole number from 1 to 64');
  const from = await endpointFor(flags.from && flags.from !== 'true' ? flags.from : env.MEDIA_STORE, 'from', env);
  const to = await endpointFor(flags.to, 'to', env);
  if (from.endpoint.location === to.endpoint.location) throw new UsageError(`--from and --to are the same place (${to.endpoint.location})`);
  await checked(from.endpoint, 'from');
  await checked(to.endpoint, 'to');

  console.log(
    `Copying media from ${from.endpoint.location} to ${to.endpoint.location} (objects already there with the same SHA-256 are skipped)`,
  );
  const pause = testPauseMs();
  let lastLine = 0;
  // Ctrl-C (or a TERM): no new object starts, uploads in flight are aborted, then the summary.
  const stop = new AbortController();
  const interrupt = () => {
    if (!stop.signal.aborted) console.log('Interrupted: stopping after aborting the objects in flight…');
    stop.abort();
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  const s = await copyMedia(from.endpoint, to.endpoint, {
    concurrency,
    signal: stop.signal,
    async onObject(p) {
      const now = performance.now();
      if (lastLine === 0 || now - lastLine >= PROGRESS_EVERY_MS || p.done === p.total) {
        lastLine = now;
        console.log(progressLine(p));
      }
      if (pause) await new Promise((r) => setTimeout(r, pause));
    },
  });
  console.log(
    `Copied ${s.copied} objects (${mib(s.copiedBytes)}) and skipped ${s.skipped} already at the target (${mib(s.skippedBytes)}) of ${s.total} in ${(s.elapsedMs / 1000).toFixed(1)} s (${rate(s.copiedBytes, s.elapsedMs)})${s.copied ? '; every copied object was read back and matched its SHA-256' : ''}`,
  );
  process.off('SIGINT', interrupt);
  process.off('SIGTERM', interrupt);
  if (s.interrupted) {
    console.log(`Interrupted after ${s.done} of ${s.total} objects: run the same command again to resume.`);
    return 130;
  }
  for (const key of s.vanished) console.warn(`Warning: ${key} was gone from the source before it was copied (a video deleted meanwhile?)`);
  if (s.mismatches.length) {
    for (const m of s.mismatches) console.error(`MISMATCH ${m.message} (removed from the target; run the copy again)`);
    console.error(`media copy failed: ${s.mismatches.length} objects did not read back as the source`);
    return 1;
  }
  const next =
    to.store === 'local'
      ? `run every process with MEDIA_STORE=local and DATA_DIR=${to.dataDir}`
      : `set MEDIA_STORE=${to.store} (with the AWS_* variables of this copy) on every process and restart them`;
  console.log(
    `Next: ${next}. The source (${from.endpoint.location}) is left as it was: remove it once the site runs on the target. Run this copy again just before the switch to pick up media uploaded meanwhile.`,
  );
  return 0;
}

export const mediaCopy: CliCommand = {
  summary:
    'copy every video’s media to --to s3://BUCKET[/PREFIX], local or DIR (from the site’s store or --from), checksummed; a re-run resumes',
  async run({ env, args }) {
    try {
      return await run(env, parseFlags(args).flags);
    } catch (err) {
      if (err instanceof UsageError) {
        console.error(`media copy: ${err.message}${err.showUsage ? `\n${USAGE}` : ''}`);
        return 2;
      }
      // A store that fails mid-copy (down, credentials revoked): what to fix, not a stack trace.
      if (err instanceof MediaStoreError) {
        console.error(`media copy stopped: ${err.message}. Run it again to resume.`);
        return 1;
      }
      throw err;
    }
  },
};
