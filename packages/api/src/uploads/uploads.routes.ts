/**
 * Mounts the tus server (tusUploads.ts) under `/api/admin/uploads`. Every method that touches an
 * upload (POST, HEAD, PATCH, DELETE, GET) is admin-only and checked here, before tus sees the
 * request; OPTIONS is open because it touches no upload: it is tus discovery (version,
 * extensions, maximum size) and what a CORS preflight would send, which carries no credentials.
 * tus answers errors with a text body; they leave here as the JSON envelope with tus's headers.
 */
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { fail, notFound, ok } from '../http/envelope.js';
import { idSchema, paramOf } from '../http/validate.js';
import { type TusUploads, VIDEO_ID_HEADER } from './tusUploads.js';

/** tus answers with a text body on errors: the same status and headers, the envelope as body. */
async function asEnvelope(c: Context<AppEnv>, res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const text = (await res.text()).trim() || 'Upload request refused';
  const answer = fail(c, res.status as ContentfulStatusCode, text);
  res.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'content-type') answer.headers.set(name, value);
  });
  return answer;
}

export function uploadRoutes(tus: TusUploads) {
  return (api: Hono<AppEnv>, ctx: AppContext): void => {
    async function passToTus(c: Context<AppEnv>): Promise<Response> {
      const admin = await requireAdmin(ctx, c);
      tus.actors.set(c.req.raw, { adminId: admin.id, requestId: c.get('requestId') ?? null });
      const res = await tus.server.handleWeb(c.req.raw);
      res.headers.set('Cache-Control', 'no-store');
      return asEnvelope(c, res);
    }

    api.options('/admin/uploads', (c) => tus.server.handleWeb(c.req.raw));
    api.options('/admin/uploads/:id', (c) => tus.server.handleWeb(c.req.raw));
    api.post('/admin/uploads', passToTus);
    api.patch('/admin/uploads/:id', passToTus);
    api.delete('/admin/uploads/:id', passToTus);

    // Hono serves HEAD through the GET route; HEAD is tus's offset request, GET our JSON status.
    api.get('/admin/uploads/:id', async function uploadStatus(c) {
      const admin = await requireAdmin(ctx, c);
      const id = paramOf(c, 'id', idSchema);
      const actor = { adminId: admin.id, requestId: c.get('requestId') ?? null };
      c.header('Cache-Control', 'no-store');
      const done = await tus.finished(id);
      if (c.req.raw.method === 'HEAD') {
        if (done) return headOfFinished(c, done.size, done.videoId);
        const upload = await tus.store.getUpload(id).catch(() => undefined);
        // Every byte arrived but the answer to the last PATCH was lost (or the server stopped while
        // ingesting): finish it now, so the client learns the video id instead of sending again.
        if (upload && upload.size !== undefined && upload.offset === upload.size) {
          const finished = await tus.finish(id, actor).catch(() => undefined);
          if (finished) return headOfFinished(c, finished.size, finished.videoId);
        }
        return passToTus(c);
      }
      if (done) return ok(c, { uploadId: id, status: 'completed', offset: done.size, size: done.size, videoId: done.videoId });
      const upload = await tus.store.getUpload(id).catch(() => undefined);
      if (!upload) throw notFound('Upload not found');
      return ok(c, { uploadId: id, status: 'open', offset: upload.offset, size: upload.size ?? null, videoId: null });
    });
  };
}

function headOfFinished(c: Context<AppEnv>, size: number, videoId: string): Response {
  c.header('Tus-Resumable', '1.0.0');
  c.header('Upload-Offset', String(size));
  c.header('Upload-Length', String(size));
  c.header(VIDEO_ID_HEADER, videoId);
  return c.body(null, 200);
}
