/**
 * The chat's figure for the admin stats (`GET /api/admin/stats`): how long members waited for the
 * team's answer, per tier (VIP: annual plan; standard: monthly), over the last 30 days, from the
 * `chat_answers` read model (chat.projection.ts).
 */
import type { Queryable } from '../db/types.js';

export const ANSWER_WINDOW_DAYS = 30;

export interface TierAnswers {
  /** Waits the team ended in the window. */
  answered: number;
  /** The median wait in seconds (null: none answered). */
  medianSeconds: number | null;
}

const median = (sorted: number[]): number | null => {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export async function chatAnswerTimes(db: Queryable, now: Date): Promise<{ vip: TierAnswers; standard: TierAnswers }> {
  const since = new Date(now.getTime() - ANSWER_WINDOW_DAYS * 86_400_000).toISOString();
  const rows = await db.all<{ tier: string; waited_ms: number }>(
    'SELECT tier, waited_ms FROM chat_answers WHERE answered_at >= ? ORDER BY waited_ms',
    [since],
  );
  const of = (tier: string): TierAnswers => {
    const waits = rows.filter((r) => r.tier === tier).map((r) => Number(r.waited_ms));
    const m = median(waits);
    return { answered: waits.length, medianSeconds: m === null ? null : Math.round(m / 1000) };
  };
  return { vip: of('vip'), standard: of('standard') };
}
