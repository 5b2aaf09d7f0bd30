/**
 * Receives the admin's multipart upload with busboy, writing each file part straight to a staging
 * file with backpressure: memory stays flat whatever the size. A part over its limit is dropped
 * at once (its partial file removed) while the rest of the body is drained, so the client still
 * reads a clean 413. On any failure no staged file is left behind.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { rawRequestBody } from '../http/validate.js';
import type { MediaStorage } from '../media/index.js';
import { type Failure, failure } from '../shared/result.js';

export const THUMBNAIL_UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
/** Room for the form fields and the thumbnail around the video itself. */
const ENVELOPE_BYTES = THUMBNAIL_UPLOAD_MAX_BYTES + 1024 * 1024;

export type FilePart = 'video' | 'thumbnail';

export interface ReceivedFile {
  path: string;
  originalName: string;
  size: number;
}

export interface ReceivedUpload {
  fields: Record<string, string[]>;
  files: Partial<Record<FilePart, ReceivedFile>>;
  /** Removes every staged file (safe to call twice). */
  cleanup(): Promise<void>;
}

export type ReceiveResult = { ok: true; upload: ReceivedUpload } | Failure;

/**
 * Streams the multipart body of `c` into staging files.
 * @example const r = await receiveMultipart(c, storage, env.MAX_UPLOAD_BYTES); if (r.ok) r.upload.files.video?.path
 */
export async function receiveMultipart(c: Context, storage: MediaStorage, maxVideoBytes: number): Promise<ReceiveResult> {
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType))
    return failure('validation.invalid_input', 'Please provide at least a title and video file');
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  const tooLarge = `The video file is too large (limit ${maxVideoBytes} bytes)`;
  if (Number.isFinite(declared) && declared > maxVideoBytes + ENVELOPE_BYTES) return failure('request.body_too_large', tooLarge);
  const body = rawRequestBody(c);
  if (!body) return failure('validation.invalid_input', 'Please provide at least a title and video file');

  const staged: string[] = [];
  const upload: ReceivedUpload = {
    fields: {},
    files: {},
    cleanup: async () => {
      await Promise.all(staged.map((p) => fsp.rm(p, { force: true })));
    },
  };
  const paths = { video: await storage.stagingPath('.part'), thumbnail: await storage.stagingPath('.img') };
  let refused: Failure | null = null;
  const writes: Promise<void>[] = [];
  const outs: fs.WriteStream[] = [];

  const receiveFile = (name: FilePart, file: Readable, originalName: string) => {
    const limit = name === 'video' ? maxVideoBytes : THUMBNAIL_UPLOAD_MAX_BYTES;
    const target = paths[name];
    staged.push(target);
    const out = fs.createWriteStream(target, { flags: 'wx' });
    outs.push(out);
    const record: ReceivedFile = { path: target, originalName, size: 0 };
    upload.files[name] = record;
    let dropped = false;
    const drop = (f: Failure) => {
      dropped = true;
      refused ??= f;
      out.destroy(); // its 'close' comes after any pending open, so the cleanup that follows really removes the file
      file.resume();
    };
    let fileDone: () => void = () => {};
    const fileEnded = new Promise<void>((resolve) => {
      fileDone = resolve;
    });
    const outClosed = new Promise<void>((resolve) => out.on('close', () => resolve()));
    file.on('data', (chunk: Buffer) => {
      if (dropped) return;
      record.size += chunk.length;
      if (record.size > limit)
        return drop(failure('request.body_too_large', name === 'video' ? tooLarge : `The thumbnail is too large (limit ${limit} bytes)`));
      if (!out.write(chunk)) {
        file.pause();
        out.once('drain', () => file.resume());
      }
    });
    file.on('limit', () => drop(failure('request.body_too_large', tooLarge)));
    file.on('end', () => {
      if (!dropped) out.end();
      fileDone();
    });
    file.on('error', () => fileDone());
    out.on('error', () => {
      if (!dropped) drop(failure('upload.store_failed', 'The upload could not be stored'));
    });
    writes.push(Promise.all([fileEnded, outClosed]).then(() => undefined));
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const bb = busboy({
        headers: { 'content-type': contentType },
        limits: {
          fileSize: Math.max(maxVideoBytes, THUMBNAIL_UPLOAD_MAX_BYTES) + 1,
          files: 4,
          fields: 40,
          fieldSize: 64 * 1024,
          parts: 50,
        },
      });
      bb.on('file', (name, file, info) => {
        if ((name === 'video' || name === 'thumbnail') && !upload.files[name]) receiveFile(name, file, info.filename ?? '');
        else file.resume();
      });
      bb.on('field', (name, value) => {
        const values = upload.fields[name] ?? [];
        values.push(value);
        upload.fields[name] = values;
      });
      bb.on('close', () => resolve());
      bb.on('error', (err) => reject(err));
      body.on('error', (err) => reject(err));
      // A client that disconnects mid-upload: the body closes without ending.
      body.on('close', () => {
        if (!body.readableEnded) reject(new Error('upload aborted'));
      });
      body.pipe(bb);
    });
    await Promise.all(writes);
  } catch {
    // A write stream still opening would create its file after the cleanup: close every one first
    // (a destroyed stream's 'close' comes after its pending open).
    await Promise.all(
      outs.map((out) => (out.closed ? undefined : new Promise<void>((resolve) => out.once('close', () => resolve()).destroy()))),
    );
    await upload.cleanup();
    return failure('upload.store_failed', 'The upload was interrupted or is not valid multipart/form-data');
  }
  if (refused) {
    await upload.cleanup();
    return refused;
  }
  return { ok: true, upload };
}
