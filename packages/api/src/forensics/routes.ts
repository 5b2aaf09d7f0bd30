/**
 * The admin's Leak tracing screen (docs/leak-tracing.md): POST /admin/leaks/examinations takes a
 * leaked copy (multipart `file`, optional `videoId`) and answers 202 with the examination queued;
 * GET /admin/leaks/examinations/{id} its state and outcome; GET /admin/leaks/examinations the past
 * ones from the `LeakCopyExamined` events (the CLI's included). With FORENSIC_WATERMARK off no
 * stream carries a mark, so sending a copy is a 409 `leak.watermark_off`.
 */
import fsp from 'node:fs/promises';
import { leakExaminationQueuedSchema, leakExaminationSchema, leakExaminationsAnswerSchema } from '@members/ui/api/schemas';
import { findVideo } from '../catalog/index.js';
import { callerOf } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams, idSchema } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { getExamination, listExaminations, MAX_WAITING, queueExamination } from './examinations.js';
import { receiveCopy } from './receiveCopy.js';

const WATERMARK_OFF =
  'Leak tracing is off on this server: set FORENSIC_WATERMARK=true (and transcode the videos again) so streams carry the mark a copy is read by';

export const forensicsRoutes: Routes = (api, ctx) => {
  api.post(
    '/admin/leaks/examinations',
    describe({
      summary: 'Send a leaked copy to find the member whose stream it was made from',
      description: `multipart/form-data: \`file\` (any format ffmpeg reads, up to \`LEAK_COPY_MAX_BYTES\`; 413 \`leak.file_too_large\` beyond, nothing kept) and, before it, an optional \`videoId\` (else the video is found by comparing the copy with every marked video). The copy is streamed to a temporary file and examined in the background, one at a time per server process (${MAX_WAITING} more may wait; 503 \`leak.queue_full\` beyond): the answer is 202 with the examination \`queued\`; poll GET /admin/leaks/examinations/{id}. The examination is recorded as a \`LeakCopyExamined\` event (who asked, the file's SHA-256, the outcome). 409 \`leak.watermark_off\` when FORENSIC_WATERMARK is off.`,
      tags: ['forensics', 'admin'],
      access: 'admin',
      permission: 'forensics',
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file'],
              properties: {
                videoId: { type: 'string', maxLength: 64, description: 'The video the copy is from, if known' },
                file: { type: 'string', contentMediaType: 'application/octet-stream' },
              },
            },
          },
        },
      },
      ok: { 202: leakExaminationQueuedSchema },
      errors: [400, 404, 409, 413, 415, 503],
    }),
    async function examineLeakedCopy(c) {
      if (!ctx.env.FORENSIC_WATERMARK) throw new HttpError('leak.watermark_off', WATERMARK_OFF);
      const received = await receiveCopy(c, ctx.media, ctx.env.LEAK_COPY_MAX_BYTES);
      if (!received.ok) throw new HttpError(received.error);
      const { copy } = received;
      if (copy.videoId !== null) {
        const known = idSchema.safeParse(copy.videoId).success && (await findVideo(ctx.db, copy.videoId, { includeUnpublished: true }));
        if (!known) {
          await fsp.rm(copy.path, { force: true });
          throw new HttpError(
            'video.not_found',
            'Video not found: leave the video out to find it by comparing the copy with every marked video',
          );
        }
      }
      const queued = valueOr(await queueExamination(ctx, callerOf(c), copy));
      return ok(c, queued, 202);
    },
  );

  api.get(
    '/admin/leaks/examinations',
    describe({
      summary: 'Past examinations of leaked copies, newest first (100 at most)',
      description:
        "From the `LeakCopyExamined` events, the CLI's included: when, who asked, the file's SHA-256, the outcome and the member's id when one was named. `enabled` says whether this server marks streams (FORENSIC_WATERMARK).",
      tags: ['forensics', 'admin'],
      access: 'admin',
      permission: 'forensics',
      ok: { 200: leakExaminationsAnswerSchema },
    }),
    async function pastExaminations(c) {
      return ok(c, {
        enabled: ctx.env.FORENSIC_WATERMARK,
        maxBytes: ctx.env.LEAK_COPY_MAX_BYTES,
        examinations: await listExaminations(ctx),
      });
    },
  );

  api.get(
    '/admin/leaks/examinations/:id',
    describe({
      summary: 'One examination of a leaked copy: its state and, once done, who it names (or why no one)',
      description:
        '`status` is `queued`, `running`, `done` or `failed`. Done: `outcome` names the member (id, name, e-mail; none once erased) with the segments read clearly, how many differ from their code and the false-match bound; or says `no-match` or `too-short` (with the seconds needed). Failed: an unreadable file (`outcome.kind` `unreadable`), or the server stopped mid-way (`summary` says so). A member is never named outside the bound (docs/leak-tracing.md).',
      tags: ['forensics', 'admin'],
      access: 'admin',
      permission: 'forensics',
      params: idParams,
      ok: { 200: leakExaminationSchema },
      errors: [404],
    }),
    async function examination(c) {
      const found = await getExamination(ctx, c.req.valid('param').id);
      if (!found) throw new HttpError('leak.examination_not_found', 'No such examination');
      return ok(c, found);
    },
  );
};
