/**
 * Admin catalog management: list every video (published or not), edit metadata, access level
 * and publication (PUT), delete (DELETE). The use cases are in videos.service.ts.
 */
import {
  addedCaptionSchema,
  adminVideoPageSchema,
  adminVideoSchema,
  deletedCaptionSchema,
  deletedVideoSchema,
  videoEditSchema,
} from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf } from '../http/auth.js';
import { HttpError, ok, refuse, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { MAX_CAPTION_BYTES } from './captions.js';
import { addCaptionTrack, CAPTION_FILE_MISSING, CAPTION_FILE_TOO_LARGE, removeCaptionTrack } from './captions.service.js';
import { listVideos, toAdminVideo } from './catalog.queries.js';
import { listQuerySchema, videoParams } from './catalog.routes.js';
import { deleteVideo, editVideo, getAnyVideo } from './videos.service.js';

/** The caption file plus the form's other fields and multipart framing. */
const CAPTION_BODY_LIMIT = MAX_CAPTION_BYTES + 64 * 1024;

/** The multipart caption upload's fields: `file`, `language`, optional `label`. */
async function captionForm(c: Context<AppEnv>) {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data'))
    throw new HttpError('caption.form_required', 'Send the caption file as multipart/form-data (file, language, label)');
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw new HttpError('validation.invalid_input', 'The form could not be read: send multipart/form-data with file, language and label');
  }
  const file = form.get('file');
  if (!file || typeof file === 'string') throw new HttpError('validation.invalid_input', CAPTION_FILE_MISSING);
  if (file.size > MAX_CAPTION_BYTES) throw new HttpError('caption.file_too_large', CAPTION_FILE_TOO_LARGE);
  const language = form.get('language');
  if (typeof language !== 'string' || !language.trim())
    throw new HttpError('validation.invalid_input', 'language is required: a BCP 47 tag such as en or pt-BR');
  const label = form.get('label');
  return { bytes: new Uint8Array(await file.arrayBuffer()), language, label: typeof label === 'string' ? label : undefined };
}

/** The edit, shared with the clients (packages/ui). */
const editSchema = videoEditSchema;

export const adminCatalogRoutes: Routes = (api, ctx) => {
  const listAllVideosDoc = describe({
    summary: 'Every video, published or not, with what the upload recorded',
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    query: listQuerySchema,
    ok: { 200: adminVideoPageSchema },
  });
  const readAnyVideoDoc = describe({
    summary: 'One video (any state)',
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    ...videoParams,
    ok: { 200: adminVideoSchema },
    errors: [404],
  });
  const editDoc = describe({
    summary: 'Edit metadata, access level, exclusivity, publication or release schedule',
    description:
      'Every field optional; `tags` and `categories` as a list or one comma-separated string. `exclusiveTo: "annual"` makes it behind-the-scenes (annual subscribers only; null: its level decides). `publishAt` (ISO 8601 with an offset) schedules the release: a future time keeps the video unpublished (unpublishing a published one) until the leader publishes it, within a minute of that time; a past time publishes it at once as of that time (each plan watches `publishAt` + its `releases` delay); null clears the schedule. `published: true` before a future `publishAt` is refused; publishing a scheduled video by hand moves its schedule to now; `published: false` cancels a pending schedule.',
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    ...videoParams,
    body: editSchema,
    ok: { 200: adminVideoSchema },
    errors: [404, 409],
  });
  const removeDoc = describe({
    summary: 'Delete a video and its files',
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    ...videoParams,
    ok: { 200: deletedVideoSchema },
    errors: [404, 409],
  });

  const addCaptionDoc = describe({
    summary: 'Add a caption track (the same language replaces it)',
    description:
      "multipart/form-data: `file` (a .vtt or .srt, at most 1 MiB, UTF-8), `language` (BCP 47: `en`, `pt-BR`), optional `label` (else the language's own name). The file is parsed and written again: SRT becomes WebVTT, cue text keeps WebVTT markup only (b, i, u, c, v, lang, ruby, rt, timestamps), cues past the video's end are clipped. A file that is neither answers 400 naming the line.",
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    ...videoParams,
    ok: { 201: addedCaptionSchema },
    errors: [400, 404, 413, 415],
  });
  const removeCaptionDoc = describe({
    summary: 'Remove a caption track',
    tags: ['catalog', 'admin'],
    access: 'admin',
    permission: 'videos',
    ...videoParams,
    params: videoParams.params.extend({ language: z.string() }),
    ok: { 200: deletedCaptionSchema },
    errors: [404],
  });

  api.post(
    '/admin/videos/:id/captions',
    addCaptionDoc,
    bodyLimit({ maxSize: CAPTION_BODY_LIMIT, onError: (cc) => refuse(cc, 'caption.file_too_large', CAPTION_FILE_TOO_LARGE) }),
    async function addCaption(c) {
      const upload = await captionForm(c);
      const added = await addCaptionTrack(ctx, c.req.valid('param').id, upload, callerOf(c));
      return ok(c, valueOr(added), 201);
    },
  );

  api.delete('/admin/videos/:id/captions/:language', removeCaptionDoc, async function removeCaption(c) {
    const { id, language } = c.req.valid('param');
    return ok(c, valueOr(await removeCaptionTrack(ctx, id, language, callerOf(c))));
  });

  api.get('/admin/videos', listAllVideosDoc, async function listAllVideos(c) {
    const query = c.req.valid('query');
    const { rows, total } = await listVideos(ctx.db, { ...query, includeUnpublished: true });
    return ok(c, { videos: rows.map(toAdminVideo), total, page: query.page, pageSize: query.pageSize });
  });

  api.get('/admin/videos/:id', readAnyVideoDoc, async function readAnyVideo(c) {
    return ok(c, valueOr(await getAnyVideo(ctx, c.req.valid('param').id)));
  });

  api.put('/admin/videos/:id', editDoc, async function edit(c) {
    return ok(c, valueOr(await editVideo(ctx, c.req.valid('param').id, c.req.valid('json'), callerOf(c))));
  });

  api.delete('/admin/videos/:id', removeDoc, async function remove(c) {
    return ok(c, valueOr(await deleteVideo(ctx, c.req.valid('param').id, callerOf(c))));
  });
};
