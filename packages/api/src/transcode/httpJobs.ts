/**
 * The token runner (`pnpm cli transcode-runner --server URL`, RUNNER_TOKEN in its environment): the
 * runner loop (runnerLoop.ts) over the runner API (runnerApi.routes.ts) as its `JobSource`. A
 * least-privilege HTTP client: no database, no secret, no store credential. It registers with a
 * heartbeat (a wrong or revoked token ends it there, exit 1), claims jobs (the server starts their
 * attempts), downloads each original through the short-lived URL of its claim into its scratch
 * folder, runs the ffmpeg ladder (hlsTranscoder.ts) and uploads the result through the upload URLs
 * the server hands out (segments and sprites first, media playlists next, the master last), then
 * reports the outcome. The server's decider and leases stay the authority: a heartbeat that reports
 * a job lost kills its ffmpeg, and every later call about it is refused (409: `JobLost`).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { runnerJobSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { listFiles } from '../shared/listFiles.js';
import { processAlive } from '../shared/processAlive.js';
import { redactSecrets } from '../shared/redact.js';
import { TranscodeError } from './hlsTranscoder.js';
import {
  type Attempt,
  type HeldJob,
  JobLost,
  type JobOutcome,
  type JobSource,
  RunnerFatal,
  type RunnerLog,
  startRunnerLoop,
} from './runnerLoop.js';

type RemoteJob = z.infer<typeof runnerJobSchema>;
type HttpJob = RemoteJob & HeldJob;

/** The server refused the token (wrong, revoked): the runner stops and exits 1. */
export class RunnerTokenRefused extends RunnerFatal {
  constructor(readonly reason: string) {
    super(`The server refused RUNNER_TOKEN (${reason})`);
  }
}

export interface RemoteRunnerOptions {
  /** The site's address, e.g. https://videos.example.com. */
  server: string;
  token: string;
  concurrency: number;
  /** Where sources and ladders are staged while a job runs (removed after each job and at stop). */
  scratchDir: string;
  pollMs?: number;
  /** Where its lines go (default: the console, errors on stderr). */
  log?: RunnerLog;
}

export interface RemoteRunner {
  id: string;
  tokenName: string;
  /** Resolves with the exit code once the runner has stopped (1: the token was refused). */
  finished: Promise<number>;
  stop(): Promise<number>;
}

const UPLOAD_CONCURRENCY = 4;

const runnerIdOf = () =>
  `${
    os
      .hostname()
      .replace(/[^A-Za-z0-9.-]/g, '-')
      .slice(0, 60) || 'runner'
  }:${process.pid}:${randomBytes(2).toString('hex')}`;

/** A token runner's lines: sentences on the console (errors on stderr), the last line of an `err` field's message after them. */
export const consoleLog: RunnerLog = (() => {
  const line = (fields: Record<string, unknown>, msg: string) =>
    fields.err instanceof Error ? `${msg} (${redactSecrets(fields.err.message).split('\n').pop()})` : msg;
  return {
    info: (fields, msg) => console.log(line(fields, msg)),
    warn: (fields, msg) => console.log(line(fields, msg)),
    error: (fields, msg) => console.error(line(fields, msg)),
  };
})();

/** PUT of a local file with its length (a presigned S3 PUT takes no chunked body). */
function putFile(url: string, file: string, headers: Record<string, string>, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const size = fs.statSync(file).size;
    const target = new URL(url);
    const req = (target.protocol === 'https:' ? https : http).request(
      target,
      { method: 'PUT', headers: { ...headers, 'content-length': String(size) }, ...(signal ? { signal } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status === 409) reject(new JobLost('the job was taken by another runner'));
          else if (status >= 300)
            reject(
              new Error(`upload of ${path.basename(file)} answered ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`),
            );
          else resolve();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    fs.createReadStream(file).on('error', reject).pipe(req);
  });
}

async function inBatches<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/** Removes what killed runners of this host left in `dir` (`runner-{host}-{pid}-{random}`: their jobs went to other runners). */
async function sweepScratch(dir: string, id: string): Promise<void> {
  const host = id.slice(0, id.indexOf(':'));
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
    const m = /^runner-(.+)-(\d+)-[0-9a-f]{4}$/.exec(name);
    if (m?.[1] === host && !processAlive(Number(m[2]))) await fsp.rm(path.join(dir, name), { recursive: true, force: true });
  }
}

/** `POST /api/runners/{route}` with the runner's token; 401 is `RunnerTokenRefused`, 409 `JobLost`. */
export type RunnerCall = <T>(route: string, body: unknown) => Promise<T>;

function runnerApi(base: URL, token: string): RunnerCall {
  return async <T>(route: string, body: unknown): Promise<T> => {
    const res = await fetch(new URL(`/api/runners/${route}`, base), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const answer = (await res.json().catch(() => ({}))) as { success?: boolean; data?: T; error?: string };
    if (res.status === 401) throw new RunnerTokenRefused(answer.error ?? 'the runner token was refused');
    if (res.status === 409) throw new JobLost(answer.error ?? 'the job was taken by another runner');
    if (!res.ok || !answer.success) throw new Error(`${route} answered ${res.status}: ${answer.error ?? ''}`);
    return answer.data as T;
  };
}

interface HttpJobsOptions {
  call: RunnerCall;
  base: URL;
  runnerId: string;
  /** This runner's scratch folder (`runner-{id}` in the scratch directory). */
  scratch: string;
  leaseMs: number;
  concurrency: number;
  startedAt: string;
  log: RunnerLog;
}

/** Uploads a finished staging folder through the server's upload URLs: segments and sprites, then media playlists, the master last. */
async function uploadLadder(o: HttpJobsOptions, job: HttpJob, staging: string, signal: AbortSignal): Promise<string[]> {
  const files = await listFiles(staging);
  const { uploads } = await o.call<{ uploads: { path: string; url: string; headers: Record<string, string> }[] }>(
    `jobs/${job.videoId}/uploads`,
    { runnerId: o.runnerId, claimAttempt: job.claimAttempt, files },
  );
  const rank = (f: string) => (f === 'master.m3u8' ? 2 : f.endsWith('.m3u8') ? 1 : 0);
  for (const level of [0, 1, 2]) {
    await inBatches(
      uploads.filter((u) => rank(u.path) === level),
      UPLOAD_CONCURRENCY,
      (u) => putFile(new URL(u.url, o.base).toString(), path.join(staging, u.path), u.headers, signal),
    );
  }
  await fsp.rm(staging, { recursive: true, force: true });
  return files;
}

/**
 * Starts a claimed job's attempt on this machine: the original downloaded through the claim's
 * short-lived URL (never with the runner's token); a download the network or the store cut leaves
 * the job to its lease.
 */
async function startAttempt(o: HttpJobsOptions, job: HttpJob, signal: AbortSignal): Promise<Attempt | JobOutcome> {
  const ref = { runnerId: o.runnerId, claimAttempt: job.claimAttempt };
  const dir = path.join(o.scratch, `${job.videoId}.${job.claimAttempt}`);
  const close = () => fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { recursive: true });
  const source = path.join(dir, 'source');
  try {
    const res = await fetch(new URL(job.sourceUrl, o.base), { signal });
    if (!res.ok || !res.body) throw new Error(`the original answered ${res.status}`);
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(source));
  } catch (err) {
    await close();
    if (signal.aborted) return 'interrupted';
    o.log.warn({ videoId: job.videoId, err }, `could not download the original of ${job.videoId}`);
    return 'unavailable';
  }
  let uploaded: string[] = [];
  return {
    spec: {
      source,
      videoDir: dir,
      attempt: job.claimAttempt,
      renditions: job.renditions,
      hasAudio: job.hasAudio,
      durationSeconds: job.durationSeconds,
      preset: job.preset,
      ...(job.watermark && { watermark: { videoId: job.videoId } }),
      key: { key: Buffer.from(job.key.key, 'hex'), iv: Buffer.from(job.key.iv, 'hex') },
      async publish(staging) {
        uploaded = await uploadLadder(o, job, staging, signal);
      },
    },
    progress: (percent) => o.call(`jobs/${job.videoId}/progress`, { ...ref, attempt: job.attempt, percent }),
    async complete(out) {
      await o.call(`jobs/${job.videoId}/complete`, { ...ref, attempt: job.attempt, files: uploaded, ...out });
    },
    async fail(err) {
      // The server or the store could not be reached (a call, an upload): not the video's fault.
      if (!(err instanceof TranscodeError)) return 'unavailable';
      try {
        await o.call(`jobs/${job.videoId}/fail`, { ...ref, attempt: job.attempt, error: err.message });
        return 'failed';
      } catch (e) {
        if (e instanceof JobLost || e instanceof RunnerFatal) throw e;
        return 'unavailable';
      }
    },
    close,
  };
}

/** The runner API as a job source for the runner `o.runnerId`. */
export function httpJobs(o: HttpJobsOptions): JobSource<HttpJob> {
  return {
    runnerId: o.runnerId,
    leaseMs: o.leaseMs,
    async claim() {
      const { job } = await o.call<{ job: RemoteJob | null }>('jobs/claim', { runnerId: o.runnerId });
      if (!job) return null;
      return { ...job, detail: `, attempt ${job.attempt}, ${job.renditions.map((r) => r.name).join('/')}` };
    },
    async heartbeat(held) {
      const jobs = held.map((j) => ({ videoId: j.videoId, claimAttempt: j.claimAttempt }));
      const { lost } = await o.call<{ lost: string[] }>('heartbeat', {
        runnerId: o.runnerId,
        concurrency: o.concurrency,
        startedAt: o.startedAt,
        jobs,
      });
      return lost;
    },
    start: (job, signal) => startAttempt(o, job, signal),
    async release(job) {
      await o.call(`jobs/${job.videoId}/release`, { runnerId: o.runnerId, claimAttempt: job.claimAttempt });
    },
    async leave(fatal) {
      if (!fatal) await o.call('stop', { runnerId: o.runnerId }).catch(() => {});
      await fsp.rm(o.scratch, { recursive: true, force: true });
    },
  };
}

/** Registers with the server (a refused token throws `RunnerTokenRefused`) and starts the loop. */
export async function startRemoteRunner(opts: RemoteRunnerOptions): Promise<RemoteRunner> {
  const runnerId = runnerIdOf();
  const base = new URL(opts.server);
  const call = runnerApi(base, opts.token);
  const startedAt = new Date().toISOString();
  const hello = await call<{ tokenName: string; leaseSeconds: number }>('heartbeat', {
    runnerId,
    concurrency: opts.concurrency,
    startedAt,
    jobs: [],
  });
  const scratch = path.join(opts.scratchDir, `runner-${runnerId.replace(/:/g, '-')}`);
  await sweepScratch(opts.scratchDir, runnerId);
  await fsp.mkdir(scratch, { recursive: true });
  const log = opts.log ?? consoleLog;
  const source = httpJobs({
    call,
    base,
    runnerId,
    scratch,
    leaseMs: hello.leaseSeconds * 1000,
    concurrency: opts.concurrency,
    startedAt,
    log,
  });
  const loop = startRunnerLoop(source, { concurrency: opts.concurrency, pollMs: opts.pollMs, log });
  return { id: runnerId, tokenName: hello.tokenName, finished: loop.finished, stop: loop.stop };
}
