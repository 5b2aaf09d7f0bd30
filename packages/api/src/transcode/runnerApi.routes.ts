/**
 * The runner API: what `pnpm cli transcode-runner --server URL` calls, authenticated by its runner
 * token (`Authorization: Bearer rnr_…`) and nothing else: `authenticate` leaves `/api/runners/`
 * alone, member and admin tokens are refused here, and a runner token opens no other route.
 *
 *   POST /api/runners/heartbeat                     register / renew the leases of the jobs it holds
 *   POST /api/runners/jobs/claim                    the next job (and its attempt started), or null
 *   POST /api/runners/jobs/{id}/progress            a percentage
 *   POST /api/runners/jobs/{id}/uploads             upload URLs for the ladder's files
 *   POST /api/runners/jobs/{id}/complete            the ladder is uploaded: swap it in, record it
 *   POST /api/runners/jobs/{id}/fail                ffmpeg failed: record it
 *   POST /api/runners/jobs/{id}/release             give the job back (the runner stops)
 *   POST /api/runners/stop                          leave the runners list
 *   GET  /api/runners/files/{id}/{claim}/source     local store: the original (signed URL)
 *   PUT  /api/runners/files/{id}/{claim}/hls/{path} local store: one ladder file (signed URL)
 */
import { Readable } from 'node:stream';
import {
  runnerClaimBodySchema,
  runnerClaimSchema,
  runnerCompleteBodySchema,
  runnerFailBodySchema,
  runnerHeartbeatBodySchema,
  runnerHeartbeatSchema,
  runnerJobAnswerSchema,
  runnerProgressBodySchema,
  runnerReleaseBodySchema,
  runnerStopBodySchema,
  runnerStoppedSchema,
  runnerUploadsBodySchema,
  runnerUploadsSchema,
} from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError, ok } from '../http/envelope.js';
import { type Credential, describe, grantOf, type RouteDoc } from '../http/openapi.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import {
  checkFileAccess,
  claimRemoteJob,
  openJobSource,
  RunnerRefusal,
  remoteComplete,
  remoteFail,
  remoteHeartbeat,
  remoteProgress,
  remoteRelease,
  remoteStop,
  remoteUploadUrls,
  writeJobFile,
} from './remoteRunners.service.js';
import { runnerTokenName } from './runnerTokens.js';

/** What a runner is told when its token is missing, wrong or revoked (the CLI prints it and exits 1). */
export const RUNNER_TOKEN_REFUSED = 'Invalid or revoked runner token';

const videoIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a video id');
const jobParams = z.object({ id: videoIdSchema });
const fileParams = z.object({ id: videoIdSchema, claim: z.string().regex(/^\d{1,9}$/), path: z.string() });

async function refusals<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RunnerRefusal) throw new HttpError(err.code, err.message);
    throw err;
  }
}

/** A runner's token, and nothing else (`authenticate` leaves these routes alone); its name is the grant. */
function runnerToken(ctx: AppContext): Credential<string> {
  return {
    who: 'Transcode runners only: `Authorization: Bearer <RUNNER_TOKEN>` (`pnpm cli runners token create NAME`); member and admin tokens are refused (401).',
    async verify(c) {
      const m = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '');
      const name = m ? await runnerTokenName(ctx.db, m[1] as string, ctx.clock.now().toISOString()) : undefined;
      if (!name) throw new HttpError('runner.token_invalid', RUNNER_TOKEN_REFUSED);
      return name;
    },
  };
}

const fileQuery = z.object({
  e: z.string().optional().describe('Expiry (Unix seconds)'),
  t: z.string().optional().describe("The runner token the URL was given to (its name): a revoked token's URLs are refused"),
  s: z.string().optional().describe('HMAC-SHA256 signature'),
});

/** A job file's signed URL (local store): scoped to the job's claim, the method and a short life. */
function jobFileUrl(ctx: AppContext, method: 'GET' | 'PUT'): Credential<{ videoId: string; claim: number }, typeof fileQuery> {
  return {
    who: 'No token: the signed, expiring query (`e`, `t`, `s`) of the URL the claim or the uploads call gave authorizes it, while the token it was given to is live.',
    query: fileQuery,
    required: ['e', 't', 's'],
    async verify(_c, { param, query }) {
      const grant = { videoId: String(param.id), claim: Number(param.claim) };
      await refusals(() => checkFileAccess(ctx, method, grant.videoId, grant.claim, query));
      return grant;
    },
  };
}

export const runnerApiRoutes: Routes = (api, ctx) => {
  const runner = runnerToken(ctx);
  /** The token name the route's `access` admitted. */
  const runnerOf = (c: Context<AppEnv, any, any>) => grantOf(c, runner);
  const doc = <const X extends Partial<RouteDoc>>(summary: string, extra: X) =>
    describe({ summary, tags: ['runners'], access: { runner }, ...extra });

  api.post(
    '/runners/heartbeat',
    doc('A runner says it is alive and renews the leases of the jobs it holds', {
      description: 'Also the first call of a runner: a wrong or revoked token ends it here. `lost`: jobs it no longer holds.',
      body: runnerHeartbeatBodySchema,
      ok: { 200: runnerHeartbeatSchema },
    }),
    async function heartbeat(c) {
      const tokenName = runnerOf(c);
      const lost = await remoteHeartbeat(ctx, tokenName, c.req.valid('json'));
      return ok(c, { tokenName, leaseSeconds: ctx.env.TRANSCODE_LEASE_SECONDS, lost });
    },
  );

  api.post(
    '/runners/jobs/claim',
    doc('Claim the next transcode job under a lease (its attempt is started), or none', {
      description:
        'The job carries a short-lived URL of the original, the ladder to make, the preset and the segment key; `job: null` when the queue is empty.',
      body: runnerClaimBodySchema,
      ok: { 200: runnerClaimSchema },
    }),
    async function claim(c) {
      return ok(c, { job: await claimRemoteJob(ctx, runnerOf(c), c.req.valid('json').runnerId) });
    },
  );

  const jobRoute = <S extends z.ZodObject>(
    name: string,
    summary: string,
    body: S,
    okSchema: z.ZodType,
    run: (tokenName: string, videoId: string, b: z.infer<S>) => Promise<unknown>,
    errors: number[] = [409],
  ) =>
    api.post(`/runners/jobs/:id/${name}`, doc(summary, { params: jobParams, body, ok: { 200: okSchema }, errors }), async (c) => {
      const b = c.req.valid('json' as never) as z.infer<S>;
      return ok(c, await refusals(() => run(runnerOf(c), c.req.valid('param').id, b)));
    });

  jobRoute('progress', 'Report how far a claimed job is', runnerProgressBodySchema, runnerJobAnswerSchema, async (t, videoId, b) => {
    await remoteProgress(ctx, t, { ...b, videoId });
    return { videoId, state: 'running' };
  });
  jobRoute(
    'uploads',
    'Upload URLs for the ladder of a claimed job (presigned PUTs on S3, signed routes on the local store)',
    runnerUploadsBodySchema,
    runnerUploadsSchema,
    (t, videoId, b) => remoteUploadUrls(ctx, t, { ...b, videoId }),
  );
  jobRoute(
    'complete',
    "The ladder is uploaded: it replaces the video's and the transcode is recorded as completed",
    runnerCompleteBodySchema,
    runnerJobAnswerSchema,
    async (t, videoId, b) => {
      await remoteComplete(ctx, t, { ...b, videoId });
      return { videoId, state: 'done' };
    },
  );
  jobRoute(
    'fail',
    'ffmpeg failed on the source: recorded as a failed transcode',
    runnerFailBodySchema,
    runnerJobAnswerSchema,
    async (t, videoId, b) => {
      await remoteFail(ctx, t, { ...b, videoId });
      return { videoId, state: 'failed' };
    },
  );
  jobRoute(
    'release',
    'Give a claimed job back to the queue (a runner stopping)',
    runnerReleaseBodySchema,
    runnerJobAnswerSchema,
    async (t, videoId, b) => {
      await remoteRelease(ctx, t, { ...b, videoId });
      return { videoId, state: 'queued' };
    },
  );

  api.post(
    '/runners/stop',
    doc('A runner stopping cleanly leaves the runners list', { body: runnerStopBodySchema, ok: { 200: runnerStoppedSchema } }),
    async function stop(c) {
      await remoteStop(ctx, runnerOf(c), c.req.valid('json').runnerId);
      return ok(c, { stopped: true });
    },
  );

  const fileDoc = <P extends z.ZodObject>(
    summary: string,
    file: Credential<any, any>,
    params: P,
    responses: NonNullable<RouteDoc['responses']>,
  ) =>
    describe({
      summary,
      description: 'Local store only: the URL comes from the claim or the uploads call, scoped to that job and short-lived.',
      tags: ['runners'],
      access: { signedUrl: file },
      params,
      responses,
      errors: [401, 403, 404, 409],
    });
  const source = jobFileUrl(ctx, 'GET');
  api.get(
    '/runners/files/:id/:claim/source',
    fileDoc("A claimed job's original, behind its signed URL", source, fileParams.omit({ path: true }), {
      200: { description: 'The file', content: { 'video/*': { schema: { type: 'string', contentMediaType: 'video/*' } } } },
    }),
    async function jobSource(c) {
      const { videoId } = grantOf(c, source);
      const src = await refusals(() => openJobSource(ctx, videoId));
      c.header('Content-Length', String(src.size));
      c.header('Content-Type', src.type);
      return c.body(Readable.toWeb(src.stream) as ReadableStream, 200);
    },
  );
  const ladderFile = jobFileUrl(ctx, 'PUT');
  api.put(
    '/runners/files/:id/:claim/hls/:path{.+}',
    fileDoc("One file of a claimed job's ladder, behind its signed URL", ladderFile, fileParams, {
      200: { description: 'Stored', content: { 'application/json': { schema: { type: 'object' } } } },
    }),
    async function jobFile(c) {
      const { videoId, claim } = grantOf(c, ladderFile);
      const raw = c.req.raw.body;
      const body = raw ? Readable.fromWeb(raw as import('node:stream/web').ReadableStream) : Readable.from([]);
      const size = await refusals(() => writeJobFile(ctx, videoId, claim, c.req.valid('param').path, body));
      return ok(c, { stored: true, size });
    },
  );
};
