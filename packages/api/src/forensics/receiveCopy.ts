/**
 * Receives a leaked copy for examination (POST /api/admin/leaks/examinations): multipart/form-data
 * with one `file` part (and an optional `videoId` field before it), streamed with busboy straight to
 * a staging file under DATA_DIR/media/incoming, its SHA-256 and size counted on the way. Over
 * `maxBytes` the file is dropped at once (its partial file removed) and the rest of the body drained
 * unwritten, so the disk never holds more than the limit. The name the client gave is kept only as
 * text to show: the staged file's name is the server's own, so a path-like name reaches nothing.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { rawRequestBody } from '../http/validate.js';
import type { MediaStorage } from '../media/index.js';
import { type Failure, failure } from '../shared/result.js';

/** Room for the form's framing and the `videoId` field around the file. */
const ENVELOPE_BYTES = 64 * 1024;
const FILE_NAME_MAX = 200;

export interface ReceivedCopy {
  path: string;
  fileName: string;
  size: number;
  sha256: string;
  videoId: string | null;
}

export type ReceiveCopyResult = { ok: true; copy: ReceivedCopy } | Failure;

/** The client's file name as plain text: its last path segment, no control characters, 200 characters at most. */
export function displayName(raw: string): string {
  const last = raw.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (clean || 'copy').slice(0, FILE_NAME_MAX);
}

/**
 * @example const r = await receiveCopy(c, ctx.media, ctx.env.LEAK_COPY_MAX_BYTES); if (r.ok) examine(r.copy.path)
 */
export async function receiveCopy(c: Context, storage: MediaStorage, maxBytes: number): Promise<ReceiveCopyResult> {
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType))
    return failure('leak.form_required', 'Send the copy as multipart/form-data: a `file` part, and `videoId` if you know the video');
  const tooLarge = `The copy is too large (limit ${maxBytes} bytes)`;
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes + ENVELOPE_BYTES) return failure('leak.file_too_large', tooLarge);
  const body = rawRequestBody(c);
  if (!body) return failure('leak.file_required', 'The form has no file: send the copy as its `file` part');

  const target = await storage.stagingPath('.leak');
  const hash = createHash('sha256');
  let size = 0;
  let fileName: string | null = null;
  let videoId: string | null = null;
  let refused: Failure | null = null;
  let out: fs.WriteStream | null = null;
  let written: Promise<void> = Promise.resolve();
  const removeStaged = async () => {
    if (out && !out.closed) await new Promise<void>((resolve) => out?.once('close', () => resolve()).destroy());
    await fsp.rm(target, { force: true });
  };

  const receiveFile = (file: Readable, name: string) => {
    fileName = displayName(name);
    const stream = fs.createWriteStream(target, { flags: 'wx' });
    out = stream;
    let dropped = false;
    const drop = (f: Failure) => {
      dropped = true;
      refused ??= f;
      stream.destroy();
      file.resume();
    };
    written = new Promise<void>((resolve) => {
      let ended = false;
      let closed = false;
      const settle = () => ended && closed && resolve();
      stream.on('close', () => {
        closed = true;
        settle();
      });
      file.on('end', () => {
        if (!dropped) stream.end();
        ended = true;
        settle();
      });
      file.on('error', () => {
        ended = true;
        settle();
      });
    });
    file.on('data', (chunk: Buffer) => {
      if (dropped) return;
      size += chunk.length;
      if (size > maxBytes) return drop(failure('leak.file_too_large', tooLarge));
      hash.update(chunk);
      if (!stream.write(chunk)) {
        file.pause();
        stream.once('drain', () => file.resume());
      }
    });
    file.on('limit', () => drop(failure('leak.file_too_large', tooLarge)));
    stream.on('error', () => {
      if (!dropped) drop(failure('upload.store_failed', 'The copy could not be stored'));
    });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const bb = busboy({
        headers: { 'content-type': contentType },
        limits: { fileSize: maxBytes + 1, files: 2, fields: 10, fieldSize: 1024, parts: 12 },
      });
      bb.on('file', (name, file, info) => {
        if (name === 'file' && fileName === null) receiveFile(file, info.filename ?? '');
        else file.resume();
      });
      bb.on('field', (name, value) => {
        if (name === 'videoId' && value.trim()) videoId = value.trim();
      });
      bb.on('close', () => resolve());
      bb.on('error', (err) => reject(err));
      body.on('error', (err) => reject(err));
      body.on('close', () => {
        if (!body.readableEnded) reject(new Error('upload aborted'));
      });
      body.pipe(bb);
    });
    await written;
  } catch {
    await removeStaged();
    return failure('upload.store_failed', 'The upload was interrupted or is not valid multipart/form-data');
  }
  if (refused) {
    await removeStaged();
    return refused;
  }
  if (fileName === null || size === 0) {
    await removeStaged();
    return failure('leak.file_required', 'The form has no file, or it is empty: send the copy as its `file` part');
  }
  return { ok: true, copy: { path: target, fileName, size, sha256: hash.digest('hex'), videoId } };
}
