/**
 * The server's side of remote transcode runners (`pnpm cli transcode-runner --server URL`, HTTP
 * clients holding a runner token and nothing else). The queue, the leases and the transcode decider
 * stay here, the single authority, exactly as for the in-server runner (transcode.service.ts): a
 * claim is taken with `claimNextJob` for the worker `{token name}/{runner id}`, every event of the
 * attempt is appended in a transaction that first renews (or ends) that claim, and the ladder
 * replaces the video's only after the claim was checked once more. The runner gets what one job
 * needs: a short-lived URL of the original, the ladder to make, the video's segment key, and
 * short-lived upload URLs for the ladder's files (presigned PUTs on S3, signed routes of this server
 * on the local store, which stage them beside the video until the completion swaps them in).
 */

import type { Readable } from 'node:stream';
import { findVideo } from '../catalog/index.js';
import type { AppContext } from '../kernel/context.js';
import { contentTypeOf, isValidKey, MissingLadderFile } from '../media/index.js';
import type { ErrorCode } from '../shared/errors.js';
import { redactSecrets } from '../shared/redact.js';
import type { Rendition } from './ladder.js';
import { checkFileQuery, type FileMethod, signFileQuery } from './runnerFiles.js';
import { forgetRunner, forgetSilentRunners, RUNNER_FORGET_SECONDS, recordRunner } from './runnerRegistry.js';
import { runnerTokenLive } from './runnerTokens.js';
import type { PreviewInfo, RenditionInfo } from './transcode.decider.js';
import { clockOf, decide, startClaimedAttempt, transcodeReadSeconds, WORKER } from './transcode.service.js';
import { claimNextJob, finishJob, type JobClaim, jobOf, LeaseLostError, releaseJob, renewLease } from './transcodeJobs.js';
import { keyFor } from './videoKeys.js';

/** How long a ladder's upload URLs stay valid once handed out. */
export const UPLOAD_URL_SECONDS = 3600;

/** A refusal the routes answer with its code (shared/errors.ts): the claim is gone, no such file, bad input. */
export class RunnerRefusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const lost = () => new RunnerRefusal('runner.job_lost', 'This runner no longer holds that job: stop it and publish nothing');

export const workerOf = (tokenName: string, runnerId: string) => `${tokenName}/${runnerId}`;

export interface RemoteJob {
  videoId: string;
  claimAttempt: number;
  attempt: number;
  sourceUrl: string;
  renditions: Rendition[];
  hasAudio: boolean;
  durationSeconds: number;
  preset: string;
  key: { key: string; iv: string };
  leaseSeconds: number;
}

function fileSecret(ctx: AppContext): string {
  const secret = ctx.env.TOKEN_SECRET;
  if (!secret) throw new Error('TOKEN_SECRET is not set (main.ts sets a dev default)');
  return secret;
}

/** The signed route of one job's file on this server (local store): relative to the site. */
function signedFilePath(
  ctx: AppContext,
  method: FileMethod,
  claim: { videoId: string; claimAttempt: number; tokenName: string },
  file: string,
  seconds: number,
) {
  const { videoId, claimAttempt } = claim;
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + seconds;
  const q = signFileQuery(fileSecret(ctx), { method, ...claim, expires });
  return `/api/runners/files/${encodeURIComponent(videoId)}/${claimAttempt}/${file}?${q}`;
}

/**
 * Claims the oldest claimable job for this runner and starts its attempt (`TranscodeStarted`), or
 * none. Jobs of deleted videos and of transcodes that cannot start end here without the runner.
 * With the media store unreachable nothing starts: the claim is left to its lease, as in-server.
 */
export async function claimRemoteJob(ctx: AppContext, tokenName: string, runnerId: string): Promise<RemoteJob | null> {
  const { now, leaseUntil } = clockOf(ctx);
  const worker = workerOf(tokenName, runnerId);
  for (let tries = 0; tries < 10; tries++) {
    const job = await claimNextJob(ctx.db, worker, now(), leaseUntil());
    if (!job) return null;
    const claim: JobClaim = { videoId: job.video_id, worker, attempt: Number(job.attempt) };
    const videoId = job.video_id;
    const start = await startClaimedAttempt(ctx, claim);
    if (start === 'skipped') continue;
    if (start === 'unavailable') return null;
    const { row, renditions, attempt } = start;
    const storage = ctx.media;
    if (renditions.length === 0) {
      await failRemote(ctx, videoId, claim, attempt, `The source has no usable picture size (${row.width}×${row.height})`);
      continue;
    }
    const duration = Number(row.duration_seconds);
    const readSeconds = transcodeReadSeconds(duration);
    const sourceUrl =
      (await storage.presignedUrl(row.video_key, readSeconds)) ??
      signedFilePath(ctx, 'GET', { videoId, claimAttempt: claim.attempt, tokenName }, 'source', readSeconds);
    const key = await keyFor(ctx.db, videoId, now());
    ctx.logger.info({ videoId, claim: claim.attempt, runner: worker }, 'transcode job claimed by a remote runner');
    return {
      videoId,
      claimAttempt: claim.attempt,
      attempt,
      sourceUrl,
      renditions,
      hasAudio: Boolean(row.audio_codec),
      durationSeconds: duration,
      preset: ctx.env.TRANSCODE_PRESET,
      key: { key: key.key.toString('hex'), iv: key.iv.toString('hex') },
      leaseSeconds: ctx.env.TRANSCODE_LEASE_SECONDS,
      ...(ctx.env.FORENSIC_WATERMARK && { watermark: true }),
    };
  }
  return null;
}

/** The runner's heartbeat: its row (with its token's name) and the leases of the jobs it holds; returns the ones it lost. */
export async function remoteHeartbeat(
  ctx: AppContext,
  tokenName: string,
  body: { runnerId: string; concurrency: number; startedAt: string; jobs: { videoId: string; claimAttempt: number }[] },
): Promise<string[]> {
  const { now, leaseUntil } = clockOf(ctx);
  const worker = workerOf(tokenName, body.runnerId);
  const [host = '', pid = '0'] = body.runnerId.split(':');
  await recordRunner(ctx.db, {
    id: worker,
    kind: 'runner',
    host,
    pid: Number(pid) || 0,
    concurrency: body.concurrency,
    started_at: body.startedAt,
    heartbeat_at: now(),
    token_name: tokenName,
  });
  const lostJobs: string[] = [];
  for (const j of body.jobs) {
    if (!(await renewLease(ctx.db, { videoId: j.videoId, worker, attempt: j.claimAttempt }, now(), leaseUntil()))) lostJobs.push(j.videoId);
  }
  await forgetSilentRunners(ctx.db, new Date(ctx.clock.now().getTime() - RUNNER_FORGET_SECONDS * 1000).toISOString());
  return lostJobs;
}

/** A runner stopping cleanly leaves the list at once. */
export async function remoteStop(ctx: AppContext, tokenName: string, runnerId: string): Promise<void> {
  await forgetRunner(ctx.db, workerOf(tokenName, runnerId));
}

/** A stopping runner gives a job back: the next runner takes it at once. */
export async function remoteRelease(ctx: AppContext, tokenName: string, b: { runnerId: string; videoId: string; claimAttempt: number }) {
  const claim = { videoId: b.videoId, worker: workerOf(tokenName, b.runnerId), attempt: b.claimAttempt };
  if (!(await releaseJob(ctx.db, claim, clockOf(ctx).now()))) throw lost();
  await removeStaged(ctx, b.videoId, b.claimAttempt);
}

export async function remoteProgress(
  ctx: AppContext,
  tokenName: string,
  b: { runnerId: string; videoId: string; claimAttempt: number; attempt: number; percent: number },
): Promise<void> {
  const { now, held } = clockOf(ctx);
  const claim = { videoId: b.videoId, worker: workerOf(tokenName, b.runnerId), attempt: b.claimAttempt };
  try {
    const r = await decide(
      ctx,
      b.videoId,
      { type: 'RecordProgress', data: { videoId: b.videoId, attempt: b.attempt, percent: b.percent, at: now() } },
      WORKER,
      held(claim),
    );
    if (!r.ok) throw lost();
  } catch (err) {
    if (err instanceof LeaseLostError) throw lost();
    throw err;
  }
}

async function failRemote(ctx: AppContext, videoId: string, claim: JobClaim, attempt: number, error: string): Promise<void> {
  const { now } = clockOf(ctx);
  const failed = await decide(
    ctx,
    videoId,
    // ffmpeg's stderr names the presigned URL it read: never stored with its signature.
    { type: 'FailTranscode', data: { videoId, attempt, error: redactSecrets(error), at: now() } },
    WORKER,
    async (tx) => {
      if (!(await finishJob(tx, claim, 'failed', now()))) throw new LeaseLostError(claim);
    },
  );
  if (!failed.ok && !(await finishJob(ctx.db, claim, 'failed', now()))) throw new LeaseLostError(claim);
}

export async function remoteFail(
  ctx: AppContext,
  tokenName: string,
  b: { runnerId: string; videoId: string; claimAttempt: number; attempt: number; error: string },
): Promise<void> {
  const claim = { videoId: b.videoId, worker: workerOf(tokenName, b.runnerId), attempt: b.claimAttempt };
  try {
    await failRemote(ctx, b.videoId, claim, b.attempt, b.error);
  } catch (err) {
    if (err instanceof LeaseLostError) throw lost();
    throw err;
  }
  await removeStaged(ctx, b.videoId, b.claimAttempt);
}

const ladderKey = (videoId: string, file: string) => `videos/${videoId}/hls/${file}`;

function checkedFiles(videoId: string, files: string[]): string[] {
  for (const f of files)
    if (!isValidKey(ladderKey(videoId, f))) throw new RunnerRefusal('runner.invalid_ladder', `Not a file of an HLS ladder: ${f}`);
  return files;
}

/** Upload URLs for the ladder's files, handed out while the claim holds (and renewing it). */
export async function remoteUploadUrls(
  ctx: AppContext,
  tokenName: string,
  b: { runnerId: string; videoId: string; claimAttempt: number; files: string[] },
): Promise<{ uploads: { path: string; url: string; headers: Record<string, string> }[]; expiresAt: string }> {
  const { held } = clockOf(ctx);
  const claim = { videoId: b.videoId, worker: workerOf(tokenName, b.runnerId), attempt: b.claimAttempt };
  const files = checkedFiles(b.videoId, b.files);
  try {
    await held(claim)(ctx.db);
  } catch (err) {
    if (err instanceof LeaseLostError) throw lost();
    throw err;
  }
  const ladder = ctx.media.remoteLadder(b.videoId, b.claimAttempt);
  const uploads = [];
  for (const f of files) {
    const url =
      (await ladder.putUrl(f, UPLOAD_URL_SECONDS)) ??
      signedFilePath(ctx, 'PUT', { videoId: b.videoId, claimAttempt: b.claimAttempt, tokenName }, `hls/${f}`, UPLOAD_URL_SECONDS);
    uploads.push({ path: f, url, headers: { 'content-type': contentTypeOf(ladderKey(b.videoId, f)) } });
  }
  return { uploads, expiresAt: new Date(ctx.clock.now().getTime() + UPLOAD_URL_SECONDS * 1000).toISOString() };
}

async function removeStaged(ctx: AppContext, videoId: string, claimAttempt: number): Promise<void> {
  await ctx.media.remoteLadder(videoId, claimAttempt).discard();
}

/**
 * Completes the attempt: checks the claim once more, replaces the video's ladder (the local store:
 * the staged folder swapped in by rename; S3: the runner's PUTs are in place, the previous ladder's
 * other files go), then records `TranscodeCompleted` and ends the job in one transaction.
 */
export async function remoteComplete(
  ctx: AppContext,
  tokenName: string,
  b: {
    runnerId: string;
    videoId: string;
    claimAttempt: number;
    attempt: number;
    files: string[];
    renditions: RenditionInfo[];
    previews: PreviewInfo | null;
    totalBytes: number;
    ffmpegSeconds: number;
  },
): Promise<void> {
  const { now, held } = clockOf(ctx);
  const videoId = b.videoId;
  const claim = { videoId, worker: workerOf(tokenName, b.runnerId), attempt: b.claimAttempt };
  const files = new Set(checkedFiles(videoId, b.files));
  if (!files.has('master.m3u8')) throw new RunnerRefusal('runner.invalid_ladder', 'A ladder has a master.m3u8');
  for (const r of b.renditions)
    if (!files.has(`${r.name}/index.m3u8`)) throw new RunnerRefusal('runner.invalid_ladder', `The ladder has no playlist of ${r.name}`);
  try {
    await held(claim)(ctx.db);
    const playlists = ['master.m3u8', ...b.renditions.map((r) => `${r.name}/index.m3u8`)];
    await ctx.media
      .remoteLadder(videoId, b.claimAttempt)
      .publish(files, playlists)
      .catch((err) => {
        throw err instanceof MissingLadderFile ? new RunnerRefusal('runner.invalid_ladder', err.message) : err;
      });
    const done = await decide(
      ctx,
      videoId,
      {
        type: 'CompleteTranscode',
        data: {
          videoId,
          attempt: b.attempt,
          renditions: b.renditions,
          previews: b.previews,
          totalBytes: b.totalBytes,
          ffmpegSeconds: b.ffmpegSeconds,
          at: now(),
        },
      },
      WORKER,
      async (tx) => {
        if (!(await finishJob(tx, claim, 'done', now()))) throw new LeaseLostError(claim);
      },
    );
    if (!done.ok) {
      await finishJob(ctx.db, claim, 'done', now());
      ctx.logger.warn({ videoId, error: done.error }, 'remote transcode finished but was not recorded');
    }
  } catch (err) {
    if (err instanceof LeaseLostError) throw lost();
    throw err;
  }
  ctx.logger.info({ videoId, attempt: b.attempt, runner: claim.worker }, 'transcode completed by a remote runner');
}

/**
 * A job file's signed URL (local store): its signature and expiry, the runner token it was signed
 * for still live (a revoked token's URLs are refused, 401, from the next request), and the claim it
 * names still running under that token.
 */
export async function checkFileAccess(
  ctx: AppContext,
  method: FileMethod,
  videoId: string,
  claimAttempt: number,
  q: { e?: string; t?: string; s?: string },
) {
  const check = checkFileQuery(fileSecret(ctx), { method, videoId, claimAttempt }, q, Math.floor(ctx.clock.now().getTime() / 1000));
  if (check !== 'ok')
    throw check === 'expired'
      ? new RunnerRefusal('runner.file_link_expired', 'This file URL has expired')
      : new RunnerRefusal('runner.file_link_invalid', 'Invalid file URL signature');
  const tokenName = q.t as string;
  if (!(await runnerTokenLive(ctx.db, tokenName)))
    throw new RunnerRefusal('runner.token_invalid', 'The runner token this file URL was given to is revoked');
  const job = await jobOf(ctx.db, videoId);
  if (job?.state !== 'running' || Number(job.attempt) !== claimAttempt || !job.worker?.startsWith(workerOf(tokenName, ''))) throw lost();
}

/** GET of a job's original through its signed URL (local store; `checkFileAccess` admitted it). */
export async function openJobSource(ctx: AppContext, videoId: string): Promise<{ stream: Readable; size: number; type: string }> {
  const row = await findVideo(ctx.db, videoId, { includeUnpublished: true });
  const storage = ctx.media;
  const st = row ? await storage.stat(row.video_key) : null;
  if (!row || !st) throw new RunnerRefusal('runner.file_not_found', 'The original is gone');
  return { stream: await storage.openRead(row.video_key), size: st.size, type: contentTypeOf(row.video_key) };
}

/** PUT of one ladder file through its signed URL (local store; `checkFileAccess` admitted it): staged beside the video until the completion. */
export async function writeJobFile(ctx: AppContext, videoId: string, claimAttempt: number, file: string, body: Readable): Promise<number> {
  checkedFiles(videoId, [file]);
  const size = await ctx.media.remoteLadder(videoId, claimAttempt).write(file, body);
  if (size === null) throw new RunnerRefusal('runner.file_not_found', 'This store takes uploads through presigned URLs');
  return size;
}
