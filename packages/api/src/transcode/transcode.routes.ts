/**
 * POST /api/admin/videos/{id}/transcode/retry — an admin queues a failed transcode again. Progress
 * and failures are read with the video (`GET /api/admin/videos`: `transcode`).
 * GET /api/admin/runners — the runner tokens (made, last contact, revoked) and the runners heard from.
 */

import { adminRunnersSchema, transcodeRetrySchema } from '@members/ui/api/schemas';
import { findVideo, videoParams } from '../catalog/index.js';
import { callerOf } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../module.js';
import { queueStatus } from './runnerRegistry.js';
import { listRunnerTokens } from './runnerTokens.js';
import { retryTranscode } from './transcode.service.js';

export const transcodeRoutes: Routes = (api, ctx) => {
  const retryDoc = describe({
    summary: 'Queue a failed HLS transcode again',
    tags: ['catalog'],
    access: 'admin',
    ...videoParams,
    ok: { 200: transcodeRetrySchema },
    errors: [404, 409],
  });
  api.post('/admin/videos/:id/transcode/retry', retryDoc, async function retry(c) {
    const videoId = c.req.valid('param').id;
    if (!(await findVideo(ctx.db, videoId, { includeUnpublished: true }))) throw new HttpError('video.not_found', 'Video not found');
    return ok(c, valueOr(await retryTranscode(ctx, videoId, callerOf(c))));
  });

  const runnersDoc = describe({
    summary: 'The transcode runner tokens and the runners heard from in the last 15 minutes',
    tags: ['catalog'],
    access: 'admin',
    ok: { 200: adminRunnersSchema },
  });
  api.get('/admin/runners', runnersDoc, async function runners(c) {
    const [tokens, status] = await Promise.all([listRunnerTokens(ctx.db), queueStatus(ctx.db, ctx.clock.now())]);
    return ok(c, {
      tokens: tokens.map((t) => ({ name: t.name, createdAt: t.created_at, lastUsedAt: t.last_used_at, revokedAt: t.revoked_at })),
      runners: status.runners,
    });
  });
};
