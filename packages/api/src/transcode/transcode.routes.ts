/**
 * POST /api/admin/videos/{id}/transcode/retry — an admin queues a failed transcode again. Progress
 * and failures are read with the video (`GET /api/admin/videos`: `transcode`).
 * GET /api/admin/runners — the runner tokens (made, last contact, revoked) and the runners heard from.
 */

import { adminRunnersSchema, transcodeRetrySchema } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import { findVideo, videoIdParam } from '../catalog/index.js';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import { queueStatus } from './runnerRegistry.js';
import { listRunnerTokens } from './runnerTokens.js';
import { retryTranscode } from './transcode.service.js';

export function mountTranscodeRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const retryDoc = describe({
    summary: 'Queue a failed HLS transcode again',
    tags: ['catalog'],
    access: 'admin',
    params: idParams,
    ok: { 200: transcodeRetrySchema },
    errors: [404, 409],
  });
  api.post('/admin/videos/:id/transcode/retry', retryDoc, async function retry(c) {
    const admin = await requireAdmin(ctx, c);
    const videoId = videoIdParam(c);
    if (!(await findVideo(ctx.db, videoId, { includeUnpublished: true }))) throw new HttpError('video.not_found', 'Video not found');
    return ok(c, valueOr(await retryTranscode(ctx, videoId, { actorId: admin.id, requestId: c.get('requestId') })));
  });

  const runnersDoc = describe({
    summary: 'The transcode runner tokens and the runners heard from in the last 15 minutes',
    tags: ['catalog'],
    access: 'admin',
    ok: { 200: adminRunnersSchema },
  });
  api.get('/admin/runners', runnersDoc, async function runners(c) {
    await requireAdmin(ctx, c);
    const [tokens, status] = await Promise.all([listRunnerTokens(ctx.db), queueStatus(ctx.db, ctx.clock.now())]);
    return ok(c, {
      tokens: tokens.map((t) => ({ name: t.name, createdAt: t.created_at, lastUsedAt: t.last_used_at, revokedAt: t.revoked_at })),
      runners: status.runners,
    });
  });
}
