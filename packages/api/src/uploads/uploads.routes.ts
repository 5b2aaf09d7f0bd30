/**
 * Handlers of the resumable upload protocol (see index.ts for the protocol). Every route is
 * admin-only. One request at a time may write an upload: a second one gets a 409 and asks again.
 */

import fsp from 'node:fs/promises';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { ingestVideoFile, validateDetails } from '../catalog/ingest.js';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { badRequest, fail, HttpError, notFound, ok } from '../http/envelope.js';
import { idSchema, jsonBody, paramOf } from '../http/validate.js';
import { appendAt, createPart, partPath, removeUploadFiles, storedBytes, thumbPath } from './uploadFiles.js';
import { findUploadSession, finishUploadSession, insertUploadSession, touchUploadSession, type UploadSession } from './uploadSessions.js';

export const UPLOAD_CONTENT_TYPE = 'application/offset+octet-stream';
export const THUMBNAIL_MAX_BYTES = 2 * 1024 * 1024;
/** The create request carries at most a base64 thumbnail (4/3 of 2 MB) and the metadata. */
const CREATE_BODY_LIMIT = Math.ceil((THUMBNAIL_MAX_BYTES * 4) / 3) + 256 * 1024;

const labels = z.union([z.string().max(4000), z.array(z.string().max(200)).max(100)]).optional();

export const createUploadSchema = z.object({
  fileName: z.string().trim().min(1).max(255),
  size: z.number().int().positive(),
  metadata: z.object({
    title: z.string().max(1000),
    description: z.string().max(20_000).optional(),
    model: z.string().max(500).optional(),
    accessLevel: z.string().max(20).optional(),
    tags: labels,
    categories: labels,
    durationText: z.string().max(20).optional(),
  }),
  thumbnail: z.string().max(CREATE_BODY_LIMIT).optional(),
});

function describe(s: UploadSession, offset: number) {
  return { uploadId: s.id, offset, size: s.size, status: s.status, videoId: s.videoId, error: s.error };
}

function decodeThumbnail(base64: string): Buffer {
  const clean = base64.replace(/^data:image\/jpeg;base64,/, '');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(clean)) throw badRequest('thumbnail: must be base64');
  const bytes = Buffer.from(clean, 'base64');
  if (bytes.length > THUMBNAIL_MAX_BYTES) throw new HttpError(413, `The thumbnail is too large (limit ${THUMBNAIL_MAX_BYTES} bytes)`);
  if (bytes.length < 3 || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) throw badRequest('thumbnail: must be a JPEG image');
  return bytes;
}

export function uploadRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const busy = new Set<string>();
  const dataDir = ctx.env.DATA_DIR;

  async function loadSession(c: Context<AppEnv>): Promise<UploadSession> {
    const id = paramOf(c, 'id', idSchema);
    const session = await findUploadSession(ctx.db, id);
    if (!session) throw notFound('Upload not found');
    return session;
  }

  /** Uploads canceled while a request was writing them: their files go when that request ends. */
  const removeWhenIdle = new Set<string>();

  /** Runs `fn` as the only writer of the upload, or answers 409 at once. */
  async function exclusive(c: Context<AppEnv>, id: string, fn: () => Promise<Response>): Promise<Response> {
    if (busy.has(id)) return fail(c, 409, 'Another request is writing this upload; ask for its offset and try again');
    busy.add(id);
    try {
      return await fn();
    } finally {
      busy.delete(id);
      if (removeWhenIdle.delete(id)) await removeUploadFiles(dataDir, id);
    }
  }

  api.post(
    '/admin/uploads',
    bodyLimit({ maxSize: CREATE_BODY_LIMIT, onError: (c) => fail(c, 413, `Request body is too large (limit ${CREATE_BODY_LIMIT} bytes)`) }),
    async function createUpload(c) {
      const admin = await requireAdmin(ctx, c);
      const body = await jsonBody(c, createUploadSchema);
      // 1. Refuse what ingestion would refuse before a single byte is sent.
      if (body.size > ctx.env.MAX_UPLOAD_BYTES)
        throw new HttpError(413, `The video file is too large (limit ${ctx.env.MAX_UPLOAD_BYTES} bytes)`);
      const checked = validateDetails({ ...body.metadata, originalName: body.fileName });
      if (!checked.ok) throw new HttpError(checked.status, checked.error);
      const thumbnail = body.thumbnail ? decodeThumbnail(body.thumbnail) : null;
      // 2. The empty part file, the optional thumbnail, then the session row.
      const id = ctx.ids.next();
      await createPart(dataDir, id);
      if (thumbnail) await fsp.writeFile(thumbPath(dataDir, id), thumbnail);
      const session: UploadSession = {
        id,
        fileName: body.fileName,
        size: body.size,
        metadata: body.metadata as UploadSession['metadata'],
        hasThumbnail: Boolean(thumbnail),
        status: 'open',
        videoId: null,
        error: null,
        createdBy: admin.id,
      };
      await insertUploadSession(ctx.db, session, ctx.clock.now());
      c.header('Location', `/api/admin/uploads/${id}`);
      c.header('Upload-Offset', '0');
      return ok(c, describe(session, 0), 201);
    },
  );

  // Hono answers HEAD with this GET handler minus the body; the headers carry the offset.
  api.get('/admin/uploads/:id', async function uploadOffset(c) {
    await requireAdmin(ctx, c);
    const session = await loadSession(c);
    const offset = session.status === 'completed' ? session.size : await storedBytes(partPath(dataDir, session.id));
    c.header('Upload-Offset', String(offset));
    c.header('Upload-Length', String(session.size));
    c.header('Cache-Control', 'no-store');
    return ok(c, describe(session, offset));
  });

  api.patch('/admin/uploads/:id', async function appendChunk(c) {
    const admin = await requireAdmin(ctx, c);
    const session = await loadSession(c);
    c.header('Cache-Control', 'no-store');
    if (session.status === 'completed') return fail(c, 409, 'This upload is already complete', { videoId: session.videoId });
    if (session.status === 'canceled') return fail(c, 410, 'This upload was canceled');
    if (session.status === 'failed') return fail(c, 409, session.error ?? 'This upload failed');
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== UPLOAD_CONTENT_TYPE) return fail(c, 415, `Content-Type must be ${UPLOAD_CONTENT_TYPE}`);
    // Digits only: Number() would read "", "0x10", "1e3" or "+0" as offsets and write at them.
    const offsetHeader = c.req.header('upload-offset') ?? '';
    const claimed = /^\d+$/.test(offsetHeader) ? Number(offsetHeader) : Number.NaN;
    if (!Number.isSafeInteger(claimed) || claimed < 0) throw badRequest('Upload-Offset header must be a non-negative integer');

    return exclusive(c, session.id, async () => {
      // 1. The client must continue exactly where the server's bytes end.
      const file = partPath(dataDir, session.id);
      const current = await storedBytes(file);
      c.header('Upload-Offset', String(current));
      if (claimed !== current)
        return fail(c, 409, `Upload-Offset ${claimed} does not match the server's offset ${current}`, { offset: current });
      const length = Number(c.req.header('content-length') ?? Number.NaN);
      if (Number.isFinite(length) && current + length > session.size)
        return fail(c, 413, `The chunk goes past the declared size of ${session.size} bytes`, { offset: current });

      // 2. Stream the body onto the part file.
      const appended = await appendAt(file, current, session.size, c.req.raw.body);
      c.header('Upload-Offset', String(appended.offset));
      if (appended.offset > current) await touchUploadSession(ctx.db, session.id, ctx.clock.now());
      if (!appended.ok) return fail(c, 413, `The chunk goes past the declared size of ${session.size} bytes`, { offset: appended.offset });
      if (!appended.complete) return ok(c, describe(session, appended.offset));

      // 3. The last byte arrived: ingest the whole file (ffprobe, storage, thumbnail, VideoUploaded),
      //    unless the upload was canceled while its bytes were arriving.
      if ((await findUploadSession(ctx.db, session.id))?.status !== 'open') return fail(c, 410, 'This upload was canceled');
      const thumb = session.hasThumbnail ? thumbPath(dataDir, session.id) : null;
      const result = await ingestVideoFile(ctx, {
        filePath: file,
        originalName: session.fileName,
        ...session.metadata,
        thumbnailPath: thumb,
        actorId: admin.id,
        requestId: c.get('requestId'),
      });
      await removeUploadFiles(dataDir, session.id);
      if (!result.ok) {
        await finishUploadSession(ctx.db, session.id, { status: 'failed', error: result.error }, ctx.clock.now());
        return fail(c, result.status, result.error);
      }
      await finishUploadSession(ctx.db, session.id, { status: 'completed', videoId: result.videoId }, ctx.clock.now());
      return ok(c, { ...describe(session, session.size), status: 'completed', videoId: result.videoId });
    });
  });

  api.delete('/admin/uploads/:id', async function cancelUpload(c) {
    await requireAdmin(ctx, c);
    const session = await loadSession(c);
    if (session.status === 'completed') return fail(c, 409, 'This upload is already complete', { videoId: session.videoId });
    // Canceled at once; a request still writing the file removes it when it ends.
    const canceled = await finishUploadSession(ctx.db, session.id, { status: 'canceled' }, ctx.clock.now());
    if (busy.has(session.id)) removeWhenIdle.add(session.id);
    else await removeUploadFiles(dataDir, session.id);
    // An upload that had already failed keeps that final state; its files go all the same.
    return ok(c, { uploadId: session.id, status: canceled ? 'canceled' : session.status });
  });
}
