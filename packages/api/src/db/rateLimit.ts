/**
 * Rate-limit counters behind one small interface, chosen by the store kind. A window is fixed (it
 * starts at its first hit) or, with `sliding`, restarts at every hit (the count is forgotten after a
 * quiet window, and `resetAt - windowMs` is the time of the last hit, which backoff needs):
 * - embedded SQLite (one process): counters in this process's memory;
 * - PostgreSQL (any number of API processes): counters in one UNLOGGED table, shared by every
 *   process, counted with one atomic upsert that also restarts an expired window. Unlogged: the
 *   counters are not worth a WAL write and may vanish with a database crash (limits then restart).
 */
import type { Db } from './types.js';

export interface RateLimiter {
  /** Counts one hit; resolves false when the key is over its limit. */
  hit(key: string): Promise<boolean>;
  /** True when the key has already used up its limit (without counting). */
  isBlocked(key: string): Promise<boolean>;
  /** The key's count in its current window and when that window ends (ms), without counting; undefined when none. */
  peek(key: string): Promise<{ count: number; resetAt: number } | undefined>;
  reset(key: string): Promise<void>;
}

export interface RateLimiterOptions {
  /** The window restarts at every hit (a count is forgotten after `windowMs` without hits). */
  sliding?: boolean;
}

/** Counters in this process's memory (the embedded single-process default). */
export class MemoryRateLimiter implements RateLimiter {
  private hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly opts: RateLimiterOptions = {},
  ) {}

  async hit(key: string): Promise<boolean> {
    const t = this.now();
    const entry = this.hits.get(key);
    if (!entry || entry.resetAt <= t) {
      this.hits.set(key, { count: 1, resetAt: t + this.windowMs });
      this.sweep(t);
      return 1 <= this.limit;
    }
    entry.count += 1;
    if (this.opts.sliding) entry.resetAt = t + this.windowMs;
    return entry.count <= this.limit;
  }

  async peek(key: string): Promise<{ count: number; resetAt: number } | undefined> {
    const entry = this.hits.get(key);
    return entry && entry.resetAt > this.now() ? { ...entry } : undefined;
  }

  async isBlocked(key: string): Promise<boolean> {
    const entry = this.hits.get(key);
    return Boolean(entry && entry.resetAt > this.now() && entry.count >= this.limit);
  }

  async reset(key: string): Promise<void> {
    this.hits.delete(key);
  }

  private sweep(t: number): void {
    if (this.hits.size < 10_000) return;
    for (const [k, v] of this.hits) if (v.resetAt <= t) this.hits.delete(k);
  }
}

/* The table comes from db/migrations (003_rate_limit_counters). */

/** Counters in PostgreSQL, shared by every process; `scope` names the limit ("login-failures"…). */
export class PostgresRateLimiter implements RateLimiter {
  constructor(
    private readonly db: Db,
    private readonly scope: string,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly opts: RateLimiterOptions = {},
  ) {}

  async hit(key: string): Promise<boolean> {
    const t = this.now();
    // Sliding: every hit moves the end of the window; fixed: only the hit that starts a new one.
    const resetAt = this.opts.sliding
      ? 'EXCLUDED.reset_at'
      : 'CASE WHEN rate_limit_counters.reset_at <= ? THEN EXCLUDED.reset_at ELSE rate_limit_counters.reset_at END';
    const row = await this.db.get<{ count: number }>(
      `INSERT INTO rate_limit_counters (scope, key, count, reset_at) VALUES (?, ?, 1, ?)
       ON CONFLICT (scope, key) DO UPDATE SET
         count = CASE WHEN rate_limit_counters.reset_at <= ? THEN 1 ELSE rate_limit_counters.count + 1 END,
         reset_at = ${resetAt}
       RETURNING count`,
      this.opts.sliding ? [this.scope, key, t + this.windowMs, t] : [this.scope, key, t + this.windowMs, t, t],
    );
    if (Math.random() < 0.001) await this.sweep(t);
    return (row?.count ?? 1) <= this.limit;
  }

  async isBlocked(key: string): Promise<boolean> {
    const row = await this.db.get<{ count: number }>('SELECT count FROM rate_limit_counters WHERE scope = ? AND key = ? AND reset_at > ?', [
      this.scope,
      key,
      this.now(),
    ]);
    return Boolean(row && row.count >= this.limit);
  }

  async peek(key: string): Promise<{ count: number; resetAt: number } | undefined> {
    const row = await this.db.get<{ count: number; reset_at: number | string }>(
      'SELECT count, reset_at FROM rate_limit_counters WHERE scope = ? AND key = ? AND reset_at > ?',
      [this.scope, key, this.now()],
    );
    return row && { count: Number(row.count), resetAt: Number(row.reset_at) };
  }

  async reset(key: string): Promise<void> {
    await this.db.run('DELETE FROM rate_limit_counters WHERE scope = ? AND key = ?', [this.scope, key]);
  }

  /** Expired windows are dead rows; removed now and then so the table stays small. */
  private async sweep(t: number): Promise<void> {
    await this.db.run('DELETE FROM rate_limit_counters WHERE reset_at <= ?', [t]);
  }
}

/** The limiter for this store: shared counters on PostgreSQL, in-memory on the embedded store. */
export function createRateLimiter(
  db: Db,
  scope: string,
  limit: number,
  windowMs: number,
  now: () => number = Date.now,
  opts: RateLimiterOptions = {},
): RateLimiter {
  return db.dialect === 'postgres'
    ? new PostgresRateLimiter(db, scope, limit, windowMs, now, opts)
    : new MemoryRateLimiter(limit, windowMs, now, opts);
}
