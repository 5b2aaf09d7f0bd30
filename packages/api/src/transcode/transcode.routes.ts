/**
 * POST /api/admin/videos/{id}/transcode/retry — an admin queues a failed transcode again. Progress
 * and failures are read with the video (`GET /api/admin/videos`: `transcode`).
 * GET /api/admin/runners — the runner tokens (made, last contact, revoked) and the runners heard from.
 * POST /api/admin/runners/tokens — makes a runner token (shown once, as `pnpm cli runners token create`);
 * DELETE /api/admin/runners/tokens/{name} — revokes one (its runners stop at their next call).
 */

import {
  adminRunnersSchema,
  runnerTokenCreatedSchema,
  runnerTokenCreateSchema,
  runnerTokenParamsSchema,
  runnerTokenRevokedSchema,
  transcodeRetrySchema,
} from '@members/ui/api/schemas';
import { findVideo, videoParams } from '../catalog/index.js';
import { callerOf } from '../http/auth.js';
import { HttpError, ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { queueStatus } from './runnerRegistry.js';
import { createRunnerToken, listRunnerTokens, revokeRunnerToken } from './runnerTokens.js';
import { retryTranscode } from './transcode.service.js';

export const transcodeRoutes: Routes = (api, ctx) => {
  const retryDoc = describe({
    summary: 'Queue a failed HLS transcode again',
    tags: ['catalog'],
    access: 'admin',
    permission: 'videos',
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
    permission: 'runners',
    ok: { 200: adminRunnersSchema },
  });
  api.get('/admin/runners', runnersDoc, async function runners(c) {
    const [tokens, status] = await Promise.all([listRunnerTokens(ctx.db), queueStatus(ctx.db, ctx.clock.now())]);
    return ok(c, {
      tokens: tokens.map((t) => ({ name: t.name, createdAt: t.created_at, lastUsedAt: t.last_used_at, revokedAt: t.revoked_at })),
      runners: status.runners,
    });
  });

  const createTokenDoc = describe({
    summary: 'Make a transcode runner token (shown once; the runner reads it as RUNNER_TOKEN)',
    tags: ['catalog'],
    access: 'admin',
    permission: 'runners',
    body: runnerTokenCreateSchema,
    ok: { 201: runnerTokenCreatedSchema },
    errors: [409],
  });
  api.post('/admin/runners/tokens', createTokenDoc, async function createToken(c) {
    const { name } = c.req.valid('json');
    const made = await createRunnerToken(ctx.db, name, ctx.clock.now().toISOString());
    // The body's schema has checked the name already: what is left is a live token of that name.
    if (!made.ok) throw new HttpError(made.reason === 'name_taken' ? 'runner.token_name_taken' : 'validation.invalid_body', made.error);
    ctx.logger.info({ token: name, by: callerOf(c).actorId }, 'runner token made');
    return ok(c, { name, token: made.token }, 201);
  });

  const revokeTokenDoc = describe({
    summary: 'Revoke a transcode runner token (its runners stop at their next call)',
    tags: ['catalog'],
    access: 'admin',
    permission: 'runners',
    params: runnerTokenParamsSchema,
    invalidParams: { code: 'runner.token_not_found', message: 'No live runner token has that name' },
    ok: { 200: runnerTokenRevokedSchema },
    errors: [404],
  });
  api.delete('/admin/runners/tokens/:name', revokeTokenDoc, async function revokeToken(c) {
    const { name } = c.req.valid('param');
    const at = ctx.clock.now().toISOString();
    if (!(await revokeRunnerToken(ctx.db, name, at))) throw new HttpError('runner.token_not_found', `No live runner token named "${name}"`);
    ctx.logger.info({ token: name, by: callerOf(c).actorId }, 'runner token revoked');
    return ok(c, { name, revokedAt: at });
  });
};
