/**
 * Mounts the tus server (tusUploads.ts) under `/api/admin/uploads`. Every method that touches an
 * upload (POST, HEAD, PATCH, DELETE, GET) is admin-only and checked by its `describe`, before tus
 * sees the request; OPTIONS is open because it touches no upload: it is tus discovery (version,
 * extensions, maximum size) and what a CORS preflight would send, which carries no credentials.
 * tus answers errors with a text body; they leave here as the JSON envelope with tus's headers.
 * An upload belongs to the admin who created it: another admin's HEAD, PATCH, DELETE or GET of it
 * answers 404 "Upload not found", exactly as an upload that does not exist (tusRecords.ts `mayTouchUpload`).
 */
import { uploadStatusSchema } from '@members/ui/api/schemas';
import type { Context } from 'hono';
import type { AppEnv } from '../http/appEnv.js';
import { userOf } from '../http/auth.js';
import { fail, HttpError, ok, refuse } from '../http/envelope.js';
import { describe, type Ownership, type RouteDoc } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { appError, type ErrorCode, isErrorCode } from '../shared/errors.js';
import { refuseOffProtocol, tusResumableHeader } from './tusProtocol.js';
import { mayTouchUpload } from './tusRecords.js';
import { type FinishedUpload, tusUploadsOf, type UploadActor, VIDEO_ID_HEADER } from './tusUploads.js';

/**
 * tus answers with a text body on errors: the same status and headers, the envelope as body. Our
 * hooks' refusals carry `{ error, code }` (tusUploads.ts `TusAnswer`); tus's own are plain text.
 */
async function asEnvelope(c: Context<AppEnv>, res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const text = (await res.text()).trim() || 'Upload request refused';
  const ours = hookRefusal(text);
  const answer = fail(
    c,
    ours ? appError(ours.code, ours.error, { status: res.status }) : appError('upload.refused', text, { status: res.status }),
  );
  res.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'content-type') answer.headers.set(name, value);
  });
  return answer;
}

function hookRefusal(text: string): { error: string; code: ErrorCode } | null {
  if (!text.startsWith('{')) return null;
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown };
    return typeof body.error === 'string' && isErrorCode(body.code) ? { error: body.error, code: body.code } : null;
  } catch {
    return null;
  }
}

/** Another admin's upload, answered as one that does not exist (its existence is not revealed). */
function notTheirs(c: Context<AppEnv>): Response {
  const answer = refuse(c, 'upload.not_found', 'Upload not found');
  answer.headers.set('Tus-Resumable', '1.0.0');
  answer.headers.set('Cache-Control', 'no-store');
  return answer;
}

/** The admin the route's `access` admitted, as the uploads' actor. */
const actorOf = (c: Context<AppEnv, any, any>): UploadActor => ({ adminId: userOf(c).id, requestId: c.get('requestId') ?? null });

/**
 * The tus endpoint: the route's `access` (admin) first, then `Tus-Resumable` (412, the routes'
 * `admit`), then, for the routes of one upload, its owner only (`owner`: another admin's upload
 * answers as one that does not exist).
 */
export const uploadRoutes: Routes = (api, ctx) => {
  // At the first request, not here: building the app (the docs figures, a server stopped at once)
  // makes no tus store, whose directory creation outlives its constructor (tusUploads.ts tusDataStore).
  const tus = () => tusUploadsOf(ctx);
  const ownUpload: Ownership = {
    owns: (_c, param, caller) => mayTouchUpload(ctx.db, String(param.id), caller.id),
    refusal: notTheirs,
  };
  const oneUpload = { admit: refuseOffProtocol, admitAfterParams: true, owner: ownUpload } as const;
  async function forward(c: Context<AppEnv, any, any>, uploadId?: string): Promise<Response> {
    const uploads = await tus();
    const res = await uploads.handle(c.req.raw, actorOf(c));
    // Finished meanwhile by another process (which removed its bytes): answered as finished, not 404.
    const late = res.status === 404 && uploadId ? await uploads.finished(uploadId) : undefined;
    if (late) return finishedAnswer(c, late);
    res.headers.set('Cache-Control', 'no-store');
    return asEnvelope(c, res);
  }

  const discovery = describe(TUS_DOCS.options);
  api.options('/admin/uploads', discovery, async (c) => (await tus()).server.handleWeb(c.req.raw));
  api.options('/admin/uploads/:id', describe({ ...TUS_DOCS.options, params: idParams }), async (c) =>
    (await tus()).server.handleWeb(c.req.raw),
  );
  api.post('/admin/uploads', tusResumableHeader, describe({ ...TUS_DOCS.create, admit: refuseOffProtocol }), (c) => forward(c));
  api.patch('/admin/uploads/:id', tusResumableHeader, describe({ ...TUS_DOCS.append, ...oneUpload }), async function appendToUpload(c) {
    // Finished already (on this process or another): a 409 with the video's id (finishedAnswer).
    const { id } = c.req.valid('param');
    const done = await (await tus()).finished(id);
    return done ? finishedAnswer(c, done) : forward(c, id);
  });
  api.delete('/admin/uploads/:id', tusResumableHeader, describe({ ...TUS_DOCS.terminate, ...oneUpload }), (c) => forward(c));

  // Hono serves HEAD through the GET route; HEAD is tus's offset request, GET our JSON status().
  api.get('/admin/uploads/:id', tusResumableHeader, describe({ ...TUS_DOCS.status, ...oneUpload }), async function uploadStatus(c) {
    const { id } = c.req.valid('param');
    c.header('Cache-Control', 'no-store');
    const uploads = await tus();
    const done = await uploads.finished(id);
    if (c.req.raw.method === 'HEAD') {
      if (done) return finishedAnswer(c, done);
      const upload = await uploads.upload(id);
      // Every byte arrived but the answer to the last PATCH was lost (or the server stopped while
      // ingesting): finish it now, so the client learns the video id instead of sending again.
      if (upload && upload.size !== undefined && upload.offset === upload.size) {
        const finished = await uploads.finish(id, actorOf(c)).catch(() => undefined);
        if (finished) return finishedAnswer(c, finished);
      }
      return forward(c, id);
    }
    const completed = (f: FinishedUpload) => ok(c, { uploadId: id, status: 'completed', offset: f.size, size: f.size, videoId: f.videoId });
    if (done) return completed(done);
    const upload = await uploads.upload(id);
    if (!upload) {
      const late = await uploads.finished(id);
      if (late) return completed(late);
      throw new HttpError('upload.not_found', 'Upload not found');
    }
    return ok(c, { uploadId: id, status: 'open', offset: upload.offset, size: upload.size ?? null, videoId: null });
  });
};

const tusResumable = { name: 'Tus-Resumable', in: 'header', required: true, schema: { type: 'string', const: '1.0.0' } } as const;
const tus = <const D extends Omit<RouteDoc, 'tags' | 'access'>>(doc: D) => ({
  ...doc,
  description:
    `${doc.description ?? ''} tus 1.0 protocol (https://tus.io/protocols/resumable-upload): any tus client (tus-js-client, Uppy, tusd's CLI) speaks it; errors carry the JSON envelope with tus's status and headers, and every answer \`Tus-Resumable: 1.0.0\`.`.trim(),
  tags: ['uploads'] as [string],
  access: 'admin' as const,
  permission: 'videos' as const,
});

/** The tus endpoint in the document: binary bodies and protocol headers, not JSON. */
const TUS_DOCS = {
  options: {
    ...tus({
      summary: 'tus discovery: version, extensions, maximum size',
      description:
        'Answers `Tus-Version`, `Tus-Extension` (creation, creation-with-upload, creation-defer-length, termination, expiration) and `Tus-Max-Size`.',
      responses: { 204: { description: 'The server capabilities in headers' } },
    }),
    access: 'public',
    permission: undefined,
    errors: [],
  },
  create: tus({
    summary: 'Create an upload (optionally with its first bytes)',
    description:
      '`Upload-Metadata` (base64 values): `filename` and `title` required; `description`, `model`, `accessLevel`, `tags`, `categories` (comma-separated), `durationText` (mm:ss), `thumbnailAtSeconds`, `exclusiveTo` (`annual`), `publishAt` (ISO 8601 with an offset: a future time keeps the video hidden until then). Checked at creation (400 before any byte); `Upload-Length` over `MAX_UPLOAD_BYTES` is a 413.',
    parameters: [
      tusResumable,
      { name: 'Upload-Length', in: 'header', required: false, schema: { type: 'string' } },
      { name: 'Upload-Defer-Length', in: 'header', required: false, schema: { type: 'string', const: '1' } },
      { name: 'Upload-Metadata', in: 'header', required: true, schema: { type: 'string' } },
    ],
    requestBody: {
      required: false,
      content: { 'application/offset+octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    },
    responses: { 201: { description: 'Created: `Location` is the upload URL; `Upload-Offset` and `Upload-Expires` (7 days) are set' } },
    errors: [400, 412, 413],
  }),
  append: tus({
    summary: 'Send bytes at `Upload-Offset`',
    description:
      'The last PATCH runs the ingestion (ffprobe, duration, thumbnail) and answers 204 with `Upload-Video-Id`; a file that is not a video is a 400 and nothing stays. A PATCH to an upload already finished (by any API process) is a 409 with `Upload-Offset` = its length and `Upload-Video-Id`.',
    params: idParams,
    parameters: [tusResumable, { name: 'Upload-Offset', in: 'header', required: true, schema: { type: 'string' } }],
    requestBody: {
      required: true,
      content: { 'application/offset+octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    },
    responses: { 204: { description: 'Stored: the new `Upload-Offset`; `Upload-Video-Id` when the upload is complete and ingested' } },
    errors: [400, 404, 409, 410, 412, 413, 415],
  }),
  terminate: tus({
    summary: 'Abandon an upload (tus termination)',
    params: idParams,
    parameters: [tusResumable],
    responses: { 204: { description: 'Removed' } },
    errors: [404, 410, 412],
  }),
  status: tus({
    summary: "An upload's status (GET, JSON); HEAD is tus's offset request",
    description:
      'GET answers JSON. HEAD (same path) answers `Upload-Offset`/`Upload-Length` headers, and `Upload-Video-Id` once ingested, so a client that lost the last answer does not send again.',
    params: idParams,
    ok: { 200: uploadStatusSchema },
    errors: [404, 410, 412],
  }),
} satisfies Record<string, RouteDoc>;

/**
 * A finished upload, for tus: HEAD answers offset = length and the video id; PATCH has nothing more
 * to append: 409 (as tus answers an offset that is not the upload's) with the same headers, and
 * tus clients then ask HEAD and count the upload as done.
 */
function finishedAnswer(c: Context<AppEnv>, done: FinishedUpload): Response {
  if (c.req.raw.method === 'PATCH') {
    const answer = refuse(c, 'upload.complete', 'This upload is already complete');
    answer.headers.set('Upload-Offset', String(done.size));
    answer.headers.set(VIDEO_ID_HEADER, done.videoId);
    answer.headers.set('Cache-Control', 'no-store');
    return answer;
  }
  c.header('Tus-Resumable', '1.0.0');
  c.header('Upload-Offset', String(done.size));
  c.header('Upload-Length', String(done.size));
  c.header(VIDEO_ID_HEADER, done.videoId);
  c.header('Cache-Control', 'no-store');
  return c.body(null, 200);
}
