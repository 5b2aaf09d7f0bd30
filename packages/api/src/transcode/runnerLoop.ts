/**
 * The transcode runner's loop, written once for both kinds of runner: the API leader's in-process
 * runner (worker.ts, over the queue itself: localJobs.ts) and the least-privilege token runner of
 * `pnpm cli transcode-runner --server URL` (over the runner API: httpJobs.ts). Where the jobs come
 * from and where their ladders go is the `JobSource` port; everything else is here:
 *
 * - up to `concurrency` jobs at once; an idle runner looks for a job every `pollMs`, and a slot that
 *   frees up looks again at once;
 * - every `lease / 3` a heartbeat renews the lease of each job it holds (and the runner's row in
 *   the runners list); a job the source says is no longer ours (the lease passed while this process
 *   was stalled and another runner took it) has its ffmpeg killed, and the source's writes are all
 *   conditional on the claim, so the loser publishes nothing;
 * - progress is reported at a few percentages only (PROGRESS_STEPS), one report after the other;
 * - a finished ladder is completed through the source, an ffmpeg failure recorded as the video's
 *   (or, with the store or the server unreachable, the job left to its lease: taken again later);
 * - stop: ffmpeg is killed, the jobs are given back to the queue for the next runner at once, and
 *   the runner leaves the list. A runner that dies without stopping (SIGKILL, a lost machine)
 *   loses its jobs when their leases pass.
 */
import { type TranscodeInput, type TranscodeOutput, transcodeToHls } from './hlsTranscoder.js';

/** Progress is recorded sparsely: at these percentages only. */
export const PROGRESS_STEPS = [25, 50, 75];
/** How often an idle runner looks for a job. */
export const RUNNER_POLL_MS = 1000;

/**
 * How one job ended. `lost`: another runner holds it now (this one's lease passed); nothing of this
 * attempt was published. `unavailable`: the media store (or, for a token runner, the site) could not
 * be reached; the job is left to its lease and taken again (by any runner) once it has passed, not
 * recorded as failed. `interrupted`: stopped (the runner stops, or its lease was found lost).
 * `skipped`: nothing to transcode (the video is gone, or its transcode cannot start).
 */
export type JobOutcome = 'completed' | 'failed' | 'skipped' | 'interrupted' | 'lost' | 'unavailable';

/** The job is no longer this runner's (its lease passed and another runner took it): publish nothing. */
export class JobLost extends Error {}
/** The runner cannot go on at all (a token runner whose token was refused): it stops, exit 1. */
export class RunnerFatal extends Error {}

/** A claimed job as the loop sees it. */
export interface HeldJob {
  videoId: string;
  /** Which claim of the job this is (the queue's `attempt` column): a later claim is another runner's. */
  claimAttempt: number;
  /** What the claim line adds after the claim number (the attempt, the ladder), if anything. */
  detail?: string;
}

/** What ffmpeg is given, less what the loop adds (the signal, the progress callback). */
export type TranscodeSpec = Omit<TranscodeInput, 'signal' | 'onProgress'>;

/** One started attempt of a claimed job: its ffmpeg input and the writes that end it. */
export interface Attempt {
  spec: TranscodeSpec;
  progress(percent: number): Promise<void>;
  /** The ladder is published (`spec.publish` ran): record the completion and end the job. */
  complete(out: TranscodeOutput): Promise<void>;
  /** The transcode failed with `err`: record the video's failure (`failed`), or leave the job to its lease (`unavailable`). */
  fail(err: unknown): Promise<'failed' | 'unavailable'>;
  /** Removes the attempt's scratch (after every ending). */
  close(): Promise<void>;
}

/**
 * Where jobs come from and where their outcomes go. Every call about a job may throw `JobLost`
 * (the claim is gone) or `RunnerFatal` (the runner must stop); others are the store's or the
 * network's and are retried (polls, heartbeats) or leave the job to its lease.
 */
export interface JobSource<J extends HeldJob = HeldJob> {
  /** This runner's id in logs and in the runners list. */
  readonly runnerId: string;
  readonly leaseMs: number;
  /** The oldest claimable job under a new lease, or none. */
  claim(): Promise<J | null>;
  /** Renews the runner's row and the leases of `held`; returns the video ids of the jobs no longer ours. */
  heartbeat(held: J[]): Promise<string[]>;
  /** Starts the claimed job's attempt (fetches its source where the runner needs a copy), or ends it without ffmpeg. */
  start(job: J, signal: AbortSignal): Promise<Attempt | JobOutcome>;
  /** Gives a claimed job back to the queue (the runner stops): the next runner takes it at once. */
  release(job: J): Promise<void>;
  /** The runner stops: it leaves the runners list (not when `fatal`: the source refused it). */
  leave(fatal: boolean): Promise<void>;
}

/** pino's call shape (the leader's logger), or a token runner's lines on the console (httpJobs.ts). */
export interface RunnerLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

export interface RunnerLoopOptions<J extends HeldJob> {
  concurrency: number;
  /** How often an idle runner looks for a job (default RUNNER_POLL_MS). */
  pollMs?: number;
  log: RunnerLog;
  /** Called after each job with its outcome (tests wait on it). */
  onJob?: (job: J, outcome: JobOutcome | 'crashed') => void;
  /** The loop's timers do not hold the process open (the API's: its server does); a token runner's do. */
  unref?: boolean;
}

export interface RunnerLoop {
  id: string;
  /** Jobs being transcoded right now. */
  running(): number;
  /** Resolves with the exit code once the runner has stopped (1: it stopped on a fatal refusal). */
  finished: Promise<number>;
  stop(): Promise<number>;
}

/** Reports progress at PROGRESS_STEPS only, one report after the other; `settled()` waits for the last. */
function progressReporter(attempt: Attempt, onError: (err: unknown) => void) {
  let step = 0;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    onProgress(fraction: number) {
      const percent = Math.floor(fraction * 100);
      if (step >= PROGRESS_STEPS.length || percent < (PROGRESS_STEPS[step] ?? 101)) return;
      while (step < PROGRESS_STEPS.length && percent >= (PROGRESS_STEPS[step] ?? 101)) step++;
      const p = PROGRESS_STEPS[step - 1] ?? percent;
      chain = chain.then(() => attempt.progress(p)).catch(onError);
    },
    settled: () => chain,
  };
}

/**
 * The line that ends a job: every outcome says what it means for the video. The reason of a failure
 * is the `err` field (pino keeps it whole; a token runner's console adds its last line).
 */
function logEnd(log: RunnerLog, fields: Record<string, unknown>, outcome: JobOutcome, detail = ''): void {
  const id = fields.videoId as string;
  if (outcome === 'completed' || outcome === 'skipped') log.info(fields, `transcode of ${id} ${outcome}${detail ? ` (${detail})` : ''}`);
  else if (outcome === 'failed') log.warn(fields, `transcode of ${id} failed`);
  else if (outcome === 'unavailable') log.warn(fields, `transcode of ${id} unavailable: the job is left to its lease`);
  else if (outcome === 'lost') log.warn(fields, `transcode of ${id} lost: another runner holds the job now; nothing published`);
  else log.info(fields, `transcode of ${id} interrupted`);
}

/** ffmpeg and the attempt's ending; throws `JobLost`, `RunnerFatal`, and anything once `signal` is aborted. */
async function transcodeAttempt(attempt: Attempt, signal: AbortSignal, log: RunnerLog, fields: Record<string, unknown>) {
  const reporter = progressReporter(attempt, (err) => {
    if (!(err instanceof JobLost)) log.warn({ ...fields, err }, `could not record the progress of ${fields.videoId}`);
  });
  try {
    const out = await transcodeToHls({ ...attempt.spec, signal, onProgress: reporter.onProgress });
    await reporter.settled();
    await attempt.complete(out);
    return { outcome: 'completed' as const, detail: out.renditions.map((r) => r.name).join(', ') };
  } catch (err) {
    await reporter.settled();
    if (err instanceof JobLost || err instanceof RunnerFatal || signal.aborted) throw err;
    return { outcome: await attempt.fail(err), detail: '', err };
  }
}

/**
 * One claimed job, start to end: the attempt started through the source, ffmpeg (hlsTranscoder.ts)
 * with progress reports, then the completion or the failure. `RunnerFatal` is thrown; everything
 * else ends as an outcome.
 */
export async function runJob<J extends HeldJob>(source: JobSource<J>, job: J, signal: AbortSignal, log: RunnerLog): Promise<JobOutcome> {
  const fields: Record<string, unknown> = { videoId: job.videoId, runner: source.runnerId };
  let attempt: Attempt | undefined;
  try {
    const started = await source.start(job, signal);
    if (typeof started === 'string') {
      logEnd(log, fields, started);
      return started;
    }
    attempt = started;
    const ended = await transcodeAttempt(started, signal, log, fields);
    logEnd(log, ended.err ? { ...fields, err: ended.err } : fields, ended.outcome, ended.detail);
    return ended.outcome;
  } catch (err) {
    if (err instanceof RunnerFatal) throw err;
    const outcome = err instanceof JobLost ? 'lost' : signal.aborted ? 'interrupted' : undefined;
    if (!outcome) throw err;
    logEnd(log, fields, outcome);
    return outcome;
  } finally {
    await attempt?.close().catch((err) => log.warn({ ...fields, err }, `could not remove the scratch of ${job.videoId}`));
  }
}

/** A loop over `source`, running until `stop()` (or a fatal refusal). */
export function startRunnerLoop<J extends HeldJob>(source: JobSource<J>, opts: RunnerLoopOptions<J>): RunnerLoop {
  const { log } = opts;
  const id = source.runnerId;
  const stopping = new AbortController();
  const jobs = new Map<string, { job: J; abort: AbortController; done: Promise<void> }>();
  let fatal = false;
  let polling: Promise<void> | undefined;
  let beating: Promise<void> | undefined;
  let stopped: Promise<number> | undefined;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  /** A fatal refusal ends the runner (once); anything else is logged and retried. */
  function failed(err: unknown, what: string): void {
    if (!(err instanceof RunnerFatal)) {
      log.warn({ err, runner: id }, `${what}; will retry`);
      return;
    }
    if (!fatal) log.error({ runner: id }, `${err.message}; this runner stops`);
    fatal = true;
    void stop();
  }

  function run(job: J): void {
    const abort = new AbortController();
    log.info(
      { videoId: job.videoId, claim: job.claimAttempt, runner: id },
      `claimed ${job.videoId} (claim ${job.claimAttempt}${job.detail ?? ''})`,
    );
    const done = runJob(source, job, abort.signal, log)
      .then(async (outcome) => {
        // Stopping: hand the job back (a no-op when another runner holds it now).
        if (outcome === 'interrupted' && stopping.signal.aborted) await source.release(job).catch(() => {});
        opts.onJob?.(job, outcome);
      })
      .catch((err) => {
        if (err instanceof RunnerFatal) return failed(err, '');
        log.error({ err, videoId: job.videoId, runner: id }, `transcode of ${job.videoId} crashed`);
        opts.onJob?.(job, 'crashed');
      })
      .finally(() => {
        jobs.delete(job.videoId);
        void poll();
      });
    jobs.set(job.videoId, { job, abort, done });
  }

  async function pollOnce(): Promise<void> {
    try {
      while (jobs.size < opts.concurrency && !stopping.signal.aborted) {
        const job = await source.claim();
        if (!job) break;
        if (stopping.signal.aborted) {
          await source.release(job).catch(() => {});
          break;
        }
        run(job);
      }
    } catch (err) {
      failed(err, 'could not look for a transcode job');
    }
  }

  function poll(): Promise<void> {
    if (polling || stopping.signal.aborted) return polling ?? Promise.resolve();
    polling = pollOnce().finally(() => {
      polling = undefined;
    });
    return polling;
  }

  async function beat(): Promise<void> {
    try {
      const held = [...jobs.values()].filter((j) => !j.abort.signal.aborted);
      const lost = new Set(await source.heartbeat(held.map((j) => j.job)));
      for (const j of held) {
        if (!lost.has(j.job.videoId)) continue;
        log.warn({ videoId: j.job.videoId, runner: id }, `lease of ${j.job.videoId} lost to another runner; stopping this attempt`);
        j.abort.abort(new JobLost('lease lost'));
      }
    } catch (err) {
      // Unreachable: the leases run out unless it comes back in time, and then the renewals find the jobs taken.
      failed(err, 'transcode heartbeat failed');
    }
  }

  function heartbeat(): void {
    if (beating || stopping.signal.aborted) return;
    beating = beat().finally(() => {
      beating = undefined;
    });
  }

  const pollTimer = setInterval(() => void poll(), opts.pollMs ?? RUNNER_POLL_MS);
  const beatTimer = setInterval(heartbeat, Math.max(250, source.leaseMs / 3));
  if (opts.unref) {
    pollTimer.unref();
    beatTimer.unref();
  }
  void poll();

  function stop(): Promise<number> {
    stopped ??= (async () => {
      clearInterval(pollTimer);
      clearInterval(beatTimer);
      stopping.abort();
      // A poll in flight releases what it claims from now on instead of running it.
      for (const j of jobs.values()) j.abort.abort(new Error('runner stopping'));
      await polling;
      await beating;
      await Promise.allSettled([...jobs.values()].map((j) => j.done));
      await source.leave(fatal).catch((err) => log.warn({ err, runner: id }, 'could not leave the runners list'));
      log.info({ runner: id }, 'transcode runner stopped');
      const code = fatal ? 1 : 0;
      finish(code);
      return code;
    })();
    return stopped;
  }

  return { id, running: () => jobs.size, finished, stop };
}
