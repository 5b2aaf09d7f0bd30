/**
 * The runners table (`transcode_runners`, migration 008) and the queue's figures for /api/health and
 * the metrics. A runner writes its row at start and at every heartbeat and removes it when it stops
 * cleanly; a runner that died keeps its last heartbeat (so an operator sees which one and when) until
 * `RUNNER_FORGET_SECONDS` have passed, then any runner's heartbeat deletes the row, which also keeps
 * the per-runner metric labels bounded. Only the database: no clock or context of its own.
 */
import type { Queryable } from '../db/types.js';

/** A runner not heard from for this long is dropped from the table, /api/health and the metrics. */
export const RUNNER_FORGET_SECONDS = 15 * 60;

export interface RunnerRow {
  id: string;
  /**
   * `server`: the leader's in-process runner (localJobs.ts); `runner`: a token runner, recorded by the
   * runner API (remoteRunners.service.ts). Rows of the removed full-context runner were `runner` with
   * no token name; they are forgotten like any silent runner's.
   */
  kind: 'server' | 'runner';
  host: string;
  pid: number;
  concurrency: number;
  started_at: string;
  heartbeat_at: string;
  /** The runner token an HTTP runner came with; null for an API leader's in-server runner. */
  token_name?: string | null;
}

export async function recordRunner(db: Queryable, r: RunnerRow): Promise<void> {
  await db.run(
    `INSERT INTO transcode_runners (id, kind, host, pid, concurrency, started_at, heartbeat_at, token_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    [r.id, r.kind, r.host, r.pid, r.concurrency, r.started_at, r.heartbeat_at, r.token_name ?? null],
  );
}

export async function forgetRunner(db: Queryable, id: string): Promise<void> {
  await db.run('DELETE FROM transcode_runners WHERE id = ?', [id]);
}

/** Deletes the rows of runners silent since before `before`; returns how many. */
export async function forgetSilentRunners(db: Queryable, before: string): Promise<number> {
  return (await db.run('DELETE FROM transcode_runners WHERE heartbeat_at < ?', [before])).changes;
}

export interface RunnerStatus {
  id: string;
  kind: 'server' | 'runner';
  tokenName: string | null;
  concurrency: number;
  startedAt: string;
  heartbeatAt: string;
  heartbeatAgeSeconds: number;
  /** Jobs it holds under a lease that has not passed. */
  jobs: number;
}

export interface QueueStatus {
  /** Jobs waiting for a runner: queued, or held under a lease that has passed (their runner died). */
  queued: number;
  /** Jobs being transcoded under a live lease. */
  running: number;
  runners: RunnerStatus[];
}

const ageSeconds = (at: Date, iso: string) => Math.max(0, Math.round((at.getTime() - Date.parse(iso)) / 100) / 10);

/** The queue's depth, its running jobs and the runners heard from within `RUNNER_FORGET_SECONDS` of `at`. */
export async function queueStatus(db: Queryable, at: Date): Promise<QueueStatus> {
  const now = at.toISOString();
  const forgetBefore = new Date(at.getTime() - RUNNER_FORGET_SECONDS * 1000).toISOString();
  const [counts, runners, held] = await Promise.all([
    db.get<{ queued: number | string | null; running: number | string | null }>(
      `SELECT
         SUM(CASE WHEN state = 'queued' OR (state = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < ?)) THEN 1 ELSE 0 END) AS queued,
         SUM(CASE WHEN state = 'running' AND lease_expires_at >= ? THEN 1 ELSE 0 END) AS running
       FROM transcode_jobs WHERE state IN ('queued', 'running')`,
      [now, now],
    ),
    db.all<RunnerRow>('SELECT * FROM transcode_runners WHERE heartbeat_at >= ? ORDER BY started_at, id', [forgetBefore]),
    db.all<{ worker: string; n: number | string }>(
      `SELECT worker, COUNT(*) AS n FROM transcode_jobs WHERE state = 'running' AND lease_expires_at >= ? GROUP BY worker`,
      [now],
    ),
  ]);
  const jobsOf = new Map(held.map((h) => [h.worker, Number(h.n)]));
  return {
    queued: Number(counts?.queued ?? 0),
    running: Number(counts?.running ?? 0),
    runners: runners.map((r) => ({
      id: r.id,
      kind: r.kind,
      tokenName: r.token_name ?? null,
      concurrency: Number(r.concurrency),
      startedAt: r.started_at,
      heartbeatAt: r.heartbeat_at,
      heartbeatAgeSeconds: ageSeconds(at, r.heartbeat_at),
      jobs: jobsOf.get(r.id) ?? 0,
    })),
  };
}
