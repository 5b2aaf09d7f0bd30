/**
 * The bytes of resumable uploads on disk: `DATA_DIR/uploads/{id}.part` (the length is the offset)
 * and an optional `{id}.thumb.jpg`. `appendAt` streams a request body onto the end of the part
 * file and keeps whatever arrived, even when the client goes away mid-body: that is what lets an
 * interrupted upload resume without re-sending those bytes.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export function uploadsDir(dataDir: string): string {
  return path.join(dataDir, 'uploads');
}

export function partPath(dataDir: string, id: string): string {
  return path.join(uploadsDir(dataDir), `${id}.part`);
}

export function thumbPath(dataDir: string, id: string): string {
  return path.join(uploadsDir(dataDir), `${id}.thumb.jpg`);
}

/** Bytes the server holds for an upload (0 when the part file is missing). */
export async function storedBytes(file: string): Promise<number> {
  try {
    return (await fsp.stat(file)).size;
  } catch {
    return 0;
  }
}

export async function createPart(dataDir: string, id: string): Promise<void> {
  await fsp.mkdir(uploadsDir(dataDir), { recursive: true });
  await fsp.writeFile(partPath(dataDir, id), new Uint8Array(0));
}

export async function removeUploadFiles(dataDir: string, id: string): Promise<void> {
  await fsp.rm(partPath(dataDir, id), { force: true });
  await fsp.rm(thumbPath(dataDir, id), { force: true });
}

export type AppendResult = { ok: true; offset: number; complete: boolean } | { ok: false; reason: 'too_large'; offset: number };

/**
 * Appends `body` at `offset` (which the caller checked is the current length), never past `limit`.
 * A body that would pass `limit` is cut back to `offset` and reported as too large. A body that
 * breaks off (client gone, server stopping) keeps the bytes written so far.
 */
export async function appendAt(
  file: string,
  offset: number,
  limit: number,
  body: ReadableStream<Uint8Array> | null,
): Promise<AppendResult> {
  const handle = await fsp.open(file, fs.constants.O_WRONLY | fs.constants.O_CREAT);
  let position = offset;
  try {
    if (!body) return { ok: true, offset, complete: offset === limit };
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (position + value.byteLength > limit) {
          await reader.cancel().catch(() => {});
          await handle.truncate(offset);
          return { ok: false, reason: 'too_large', offset };
        }
        let written = 0;
        while (written < value.byteLength) {
          const r = await handle.write(value, written, value.byteLength - written, position + written);
          written += r.bytesWritten;
        }
        position += value.byteLength;
      }
    } catch {
      // The body broke off: keep what arrived; the client asks for the offset and goes on from there.
    } finally {
      reader.releaseLock();
    }
    await handle.sync();
    return { ok: true, offset: position, complete: position === limit };
  } finally {
    await handle.close();
  }
}
