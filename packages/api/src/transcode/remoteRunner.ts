/**
 * A transcode runner as a least-privilege HTTP client (`pnpm cli transcode-runner --server URL`,
 * RUNNER_TOKEN in its environment): no database, no secret, no store credential. It registers with
 * a heartbeat (a wrong or revoked token ends it there, exit 1), claims jobs over the runner API
 * (transcode/runnerApi.routes.ts) up to `concurrency` at once, downloads each original through the
 * short-lived URL of its claim into its scratch folder, runs the same ffmpeg ladder as the in-server
 * runner (hlsTranscoder.ts) and uploads the result through the upload URLs the server hands out
 * (segments and sprites first, media playlists next, the master last), then reports the outcome.
 * The server's decider and leases stay the authority: a heartbeat that reports a job lost kills its
 * ffmpeg, and every later call about it is refused (409). SIGTERM: ffmpeg is killed, the jobs are
 * given back and the runner leaves the list.
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
import { processAlive } from '../shared/processAlive.js';
import { TranscodeError, transcodeToHls } from './hlsTranscoder.js';

type RemoteJob = z.infer<typeof runnerJobSchema>;

/** The server refused the token (wrong, revoked): the runner stops and exits 1. */
export class RunnerTokenRefused extends Error {}
/** The server says this runner no longer holds the job (409): publish nothing. */
class JobLost extends Error {}

export interface RemoteRunnerOptions {
  /** The site's address, e.g. https://videos.example.com. */
  server: string;
  token: string;
  concurrency: number;
  /** Where sources and ladders are staged while a job runs (removed after each job and at stop). */
  scratchDir: string;
  pollMs?: number;
  log?: (line: string) => void;
}

export interface RemoteRunner {
  id: string;
  tokenName: string;
  /** Resolves with the exit code once the runner has stopped (1: the token was refused). */
  finished: Promise<number>;
  stop(): Promise<number>;
}

/** Progress is reported at these percentages only, as in-server. */
const PROGRESS_STEPS = [25, 50, 75];
const UPLOAD_CONCURRENCY = 4;

const runnerIdOf = () =>
  `${
    os
      .hostname()
      .replace(/[^A-Za-z0-9.-]/g, '-')
      .slice(0, 60) || 'runner'
  }:${process.pid}:${randomBytes(2).toString('hex')}`;

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await listFiles(path.join(dir, e.name), `${prefix}${e.name}/`)));
    else out.push(`${prefix}${e.name}`);
  }
  return out;
}

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

export async function startRemoteRunner(opts: RemoteRunnerOptions): Promise<RemoteRunner> {
  const id = runnerIdOf();
  const log = opts.log ?? ((line: string) => console.log(line));
  const base = new URL(opts.server);
  const startedAt = new Date().toISOString();
  const scratch = path.join(opts.scratchDir, `runner-${id.replace(/:/g, '-')}`);
  const stopping = new AbortController();
  const jobs = new Map<string, { job: RemoteJob; abort: AbortController; done: Promise<void> }>();
  let exitCode = 0;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  async function call<T>(route: string, body: unknown): Promise<T> {
    const res = await fetch(new URL(`/api/runners/${route}`, base), {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const answer = (await res.json().catch(() => ({}))) as { success?: boolean; data?: T; error?: string };
    if (res.status === 401) throw new RunnerTokenRefused(answer.error ?? 'the runner token was refused');
    if (res.status === 409) throw new JobLost(answer.error ?? 'the job was taken by another runner');
    if (!res.ok || !answer.success) throw new Error(`${route} answered ${res.status}: ${answer.error ?? ''}`);
    return answer.data as T;
  }

  const heartbeatBody = () => ({
    runnerId: id,
    concurrency: opts.concurrency,
    startedAt,
    jobs: [...jobs.values()]
      .filter((j) => !j.abort.signal.aborted)
      .map((j) => ({ videoId: j.job.videoId, claimAttempt: j.job.claimAttempt })),
  });

  // Registration: a wrong or revoked token ends the runner here.
  const hello = await call<{ tokenName: string; leaseSeconds: number; lost: string[] }>('heartbeat', heartbeatBody());
  await sweepScratch(opts.scratchDir, id);
  await fsp.mkdir(scratch, { recursive: true });

  function fatal(err: unknown): void {
    if (err instanceof RunnerTokenRefused) {
      if (exitCode === 0) console.error(`The server refused RUNNER_TOKEN (${err.message}); this runner stops.`);
      exitCode = 1;
      void stop();
    }
  }

  async function runJob(job: RemoteJob, signal: AbortSignal): Promise<void> {
    const ref = { runnerId: id, claimAttempt: job.claimAttempt };
    const dir = path.join(scratch, `${job.videoId}.${job.claimAttempt}`);
    await fsp.mkdir(dir, { recursive: true });
    try {
      // 1. The original, through the claim's short-lived URL (never with the runner's token).
      const source = path.join(dir, 'source');
      const res = await fetch(new URL(job.sourceUrl, base), { signal });
      if (!res.ok || !res.body) throw new Error(`the original answered ${res.status}`);
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(source));
      // 2. The ladder, uploaded through the server's URLs.
      let uploaded: string[] = [];
      let step = 0;
      let progress: Promise<unknown> = Promise.resolve();
      const out = await transcodeToHls({
        source,
        videoDir: dir,
        attempt: job.claimAttempt,
        renditions: job.renditions,
        hasAudio: job.hasAudio,
        durationSeconds: job.durationSeconds,
        preset: job.preset,
        key: { key: Buffer.from(job.key.key, 'hex'), iv: Buffer.from(job.key.iv, 'hex') },
        signal,
        onProgress(fraction) {
          const percent = Math.floor(fraction * 100);
          if (step >= PROGRESS_STEPS.length || percent < (PROGRESS_STEPS[step] ?? 101)) return;
          while (step < PROGRESS_STEPS.length && percent >= (PROGRESS_STEPS[step] ?? 101)) step++;
          const p = PROGRESS_STEPS[step - 1] ?? percent;
          progress = progress
            .then(() => call(`jobs/${job.videoId}/progress`, { ...ref, attempt: job.attempt, percent: p }))
            .catch(() => {});
        },
        async publish(staging) {
          const files = await listFiles(staging);
          const { uploads } = await call<{ uploads: { path: string; url: string; headers: Record<string, string> }[] }>(
            `jobs/${job.videoId}/uploads`,
            { ...ref, files },
          );
          const rank = (f: string) => (f === 'master.m3u8' ? 2 : f.endsWith('.m3u8') ? 1 : 0);
          for (const level of [0, 1, 2]) {
            await inBatches(
              uploads.filter((u) => rank(u.path) === level),
              UPLOAD_CONCURRENCY,
              (u) => putFile(new URL(u.url, base).toString(), path.join(staging, u.path), u.headers, signal),
            );
          }
          uploaded = files;
          await fsp.rm(staging, { recursive: true, force: true });
        },
      });
      await progress;
      await call(`jobs/${job.videoId}/complete`, { ...ref, attempt: job.attempt, files: uploaded, ...out });
      log(`transcode of ${job.videoId} completed (${out.renditions.map((r) => r.name).join(', ')})`);
    } catch (err) {
      if (err instanceof RunnerTokenRefused) throw err;
      if (err instanceof JobLost) {
        log(`transcode of ${job.videoId}: another runner holds the job now; nothing published`);
        return;
      }
      if (signal.aborted) {
        if (stopping.signal.aborted) await call(`jobs/${job.videoId}/release`, ref).catch(() => {});
        return;
      }
      if (err instanceof TranscodeError) {
        log(`transcode of ${job.videoId} failed: ${err.message.split('\n').pop()}`);
        await call(`jobs/${job.videoId}/fail`, { ...ref, attempt: job.attempt, error: err.message }).catch((e) => {
          if (e instanceof RunnerTokenRefused) throw e;
        });
        return;
      }
      // The server or the store could not be reached: no failure of the video; its lease passes and it is taken again.
      log(`transcode of ${job.videoId} interrupted (${(err as Error).message}); the job is left to its lease`);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true }).catch(() => {});
    }
  }

  function run(job: RemoteJob): void {
    const abort = new AbortController();
    log(`claimed ${job.videoId} (claim ${job.claimAttempt}, attempt ${job.attempt}, ${job.renditions.map((r) => r.name).join('/')})`);
    const done = runJob(job, abort.signal)
      .catch(fatal)
      .finally(() => {
        jobs.delete(job.videoId);
        void poll();
      });
    jobs.set(job.videoId, { job, abort, done });
  }

  let polling: Promise<void> | undefined;
  function poll(): Promise<void> {
    if (polling || stopping.signal.aborted) return polling ?? Promise.resolve();
    polling = (async () => {
      try {
        while (jobs.size < opts.concurrency && !stopping.signal.aborted) {
          const { job } = await call<{ job: RemoteJob | null }>('jobs/claim', { runnerId: id });
          if (!job) break;
          if (stopping.signal.aborted) {
            await call(`jobs/${job.videoId}/release`, { runnerId: id, claimAttempt: job.claimAttempt }).catch(() => {});
            break;
          }
          run(job);
        }
      } catch (err) {
        if (err instanceof RunnerTokenRefused) fatal(err);
        else log(`could not reach the server (${(err as Error).message}); will retry`);
      }
    })().finally(() => {
      polling = undefined;
    });
    return polling;
  }

  let beating: Promise<void> | undefined;
  function heartbeat(): void {
    if (beating || stopping.signal.aborted) return;
    beating = (async () => {
      try {
        const { lost } = await call<{ lost: string[] }>('heartbeat', heartbeatBody());
        for (const videoId of lost) {
          const j = jobs.get(videoId);
          if (j && !j.abort.signal.aborted) {
            log(`lease of ${videoId} lost to another runner; stopping this attempt`);
            j.abort.abort(new Error('lease lost'));
          }
        }
      } catch (err) {
        if (err instanceof RunnerTokenRefused) fatal(err);
      }
    })().finally(() => {
      beating = undefined;
    });
  }

  const pollTimer = setInterval(() => void poll(), opts.pollMs ?? 1000);
  const beatTimer = setInterval(heartbeat, Math.max(250, (hello.leaseSeconds * 1000) / 3));
  void poll();

  let stopped: Promise<number> | undefined;
  function stop(): Promise<number> {
    stopped ??= (async () => {
      clearInterval(pollTimer);
      clearInterval(beatTimer);
      stopping.abort();
      for (const j of jobs.values()) j.abort.abort(new Error('runner stopping'));
      await polling;
      await beating;
      await Promise.allSettled([...jobs.values()].map((j) => j.done));
      if (exitCode === 0) await call('stop', { runnerId: id }).catch(() => {});
      await fsp.rm(scratch, { recursive: true, force: true }).catch(() => {});
      finish(exitCode);
      return exitCode;
    })();
    return stopped;
  }

  return { id, tokenName: hello.tokenName, finished, stop };
}
