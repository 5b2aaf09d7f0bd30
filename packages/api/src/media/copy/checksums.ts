/**
 * SHA-256 of files and streams, for a media copy (copyMedia.ts) and the stores' verified writes
 * (`MediaStorage.writeVerified`).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
