/**
 * Copies every object under `videos/` from one media location to another (local folder ⇄ bucket,
 * bucket → bucket), checksummed and resumable: an object already at the target with the same size
 * and SHA-256 is skipped, so a run after an interruption (Ctrl-C, SIGKILL, a lost connection) sends
 * only what is missing or differs; every object written is read back and compared before it counts
 * (`MediaStorage.writeVerified`). Both sides are media stores (storage.ts), opened for any location
 * (`openMediaStore`). The source is never changed.
 */
import fsp from 'node:fs/promises';
import { CopyMismatchError, type ListedObject, type MediaStorage } from '../storage.js';
import { downloadHashing, sha256OfFile } from './checksums.js';

export interface CopyProgress {
  done: number;
  total: number;
  copied: number;
  copiedBytes: number;
  skipped: number;
  skippedBytes: number;
  elapsedMs: number;
}

export interface CopySummary extends CopyProgress {
  /** Objects whose copy did not read back as the source: named, none of them left looking complete. */
  mismatches: { key: string; message: string }[];
  /** Objects listed at the source but gone before they were read (a video deleted meanwhile). */
  vanished: string[];
  /** Stopped by `signal` (Ctrl-C): what was done stays done, a re-run resumes. */
  interrupted: boolean;
}

export interface CopyOptions {
  /** Objects copied at once (default 4). */
  concurrency?: number;
  /** Copies only the keys this accepts (a backup: the videos of its snapshot). */
  only?: (key: string) => boolean;
  /** Stops the copy: no new object starts, the ones in flight are abandoned (nothing half-written is left looking complete). */
  signal?: AbortSignal;
  /** After each object, copied or skipped. */
  onObject?: (progress: CopyProgress, key: string, outcome: 'copied' | 'skipped') => void | Promise<void>;
}

function isGone(err: unknown): boolean {
  const e = err as { code?: string; name?: string; $metadata?: { httpStatusCode?: number } };
  return e.code === 'ENOENT' || e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

interface Staged {
  file: string;
  size: number;
  sha256: string;
  scratch: boolean;
}

async function stage(source: MediaStorage, key: string, signal?: AbortSignal): Promise<Staged> {
  const local = source.localPath(key);
  if (local) return { file: local, ...(await sha256OfFile(local)), scratch: false };
  const file = await source.stagingPath('.copy');
  try {
    return { file, ...(await downloadHashing(await source.openRead(key, undefined, signal), file)), scratch: true };
  } catch (err) {
    await fsp.rm(file, { force: true });
    throw err;
  }
}

export async function copyMedia(source: MediaStorage, target: MediaStorage, opts: CopyOptions = {}): Promise<CopySummary> {
  const started = performance.now();
  const objects = (await source.list()).filter((o) => !opts.only || opts.only(o.key));
  const s: CopySummary = {
    done: 0,
    total: objects.length,
    copied: 0,
    copiedBytes: 0,
    skipped: 0,
    skippedBytes: 0,
    elapsedMs: 0,
    mismatches: [],
    vanished: [],
    interrupted: false,
  };
  const signal = opts.signal;

  async function one({ key, size }: ListedObject): Promise<'copied' | 'skipped'> {
    let staged: Staged | undefined;
    try {
      const there = await target.digest(key, size);
      if (there?.sha256 && there.size === size) {
        // The source's own record first (an object a previous copy wrote), else its bytes.
        let sha = source.localPath(key) ? null : ((await source.digest(key, size))?.sha256 ?? null);
        if (!sha) {
          staged = await stage(source, key, signal);
          sha = staged.sha256;
        }
        if (sha === there.sha256 && (!staged || staged.size === size)) {
          s.skipped += 1;
          s.skippedBytes += size;
          return 'skipped';
        }
      }
      staged ??= await stage(source, key, signal);
      await target.writeVerified(key, staged.file, staged.size, staged.sha256, signal);
      s.copied += 1;
      s.copiedBytes += staged.size;
      return 'copied';
    } finally {
      if (staged?.scratch) await fsp.rm(staged.file, { force: true });
    }
  }

  const queue = [...objects];
  const worker = async () => {
    for (let next = queue.shift(); next && !signal?.aborted; next = queue.shift()) {
      try {
        const outcome = await one(next);
        s.done += 1;
        s.elapsedMs = performance.now() - started;
        await opts.onObject?.({ ...s }, next.key, outcome);
      } catch (err) {
        if (signal?.aborted) return;
        if (err instanceof CopyMismatchError) s.mismatches.push({ key: err.key, message: err.message });
        else if (isGone(err)) s.vanished.push(next.key);
        else {
          queue.length = 0;
          throw err;
        }
        s.done += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  s.elapsedMs = performance.now() - started;
  s.interrupted = Boolean(signal?.aborted);
  return s;
}
