/**
 * One side of a media copy (`pnpm cli media copy`): a local media folder (`DATA_DIR/media`) or an
 * S3 location (`s3://BUCKET[/PREFIX]`), seen as objects under the store's keys (`videos/…`). Kept
 * apart from MediaStorage (storage.ts), which serves one site's running processes: a copy needs to
 * list everything, read the checksum a side recorded or can compute, and write any key atomically
 * — verified before it looks complete.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ListedObject {
  /** A store key, `videos/{videoId}/…`. */
  key: string;
  size: number;
}

export interface CopyEndpoint {
  /** `DIR/media` or `s3://bucket/prefix/`, for messages. */
  readonly label: string;
  /** Throws a MediaStoreError (or a plain Error saying what is wrong) when this side cannot be used. */
  check(): Promise<void>;
  /** Every object under `videos/`, sorted by key. */
  list(): Promise<ListedObject[]>;
  /**
   * The object's size and SHA-256, or null when absent. `sha256` is null when it is not known
   * without reading the whole object from afar (an S3 object written by the server, not by a copy).
   * A local file's SHA-256 is computed only when its size is `expectSize`.
   */
  digest(key: string, expectSize: number): Promise<{ size: number; sha256: string | null } | null>;
  /** `signal` aborts the read (Ctrl-C). */
  read(key: string, signal?: AbortSignal): Promise<Readable>;
  /** A path the object can be read from in place (local files), or null. */
  localPath(key: string): string | null;
  /**
   * Stores the complete local `file` (`size` bytes, SHA-256 `sha256`) as `key`, and reads it back:
   * an object whose bytes do not hash to `sha256` is never left looking complete (a local temp file
   * is removed before any rename, an S3 object is deleted) and a CopyMismatchError is thrown.
   * `signal` aborts an upload in flight (an S3 multipart upload is aborted, its parts removed).
   */
  write(key: string, file: string, size: number, sha256: string, signal?: AbortSignal): Promise<void>;
  /** A fresh scratch file path on this machine (to stage objects read from an object store). */
  scratchFile(): Promise<string>;
}

/** What was read back is not what was written. */
export class CopyMismatchError extends Error {
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key}: ${detail}`);
  }
}

export async function sha256OfStream(stream: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}

export const sha256OfFile = (file: string) => sha256OfStream(fs.createReadStream(file, { highWaterMark: 1024 * 1024 }));

/** Streams `source` into `file` while hashing it. */
export async function downloadHashing(source: Readable, file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, tap, fs.createWriteStream(file));
  return { sha256: hash.digest('hex'), size };
}
