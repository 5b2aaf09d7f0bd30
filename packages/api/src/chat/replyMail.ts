/**
 * Mail for a member who is offline when the team replies (issue 30 item 6; the rule is in
 * replyMail.policy.ts, docs/chat.md explains it). Two parts:
 * - a checkpointed subscriber (exactly once per event, with any number of processes) keeps one
 *   `chat_reply_mails` row per member: the team's first reply after the member's last read opens a
 *   burst (`waiting`), later replies belong to it, the member's read closes it (the row goes);
 * - a worker, run by the leader (module `background`), decides each burst CHAT_MAIL_DELAY_SECONDS
 *   after it began: it claims the row with a lease (an UPDATE that only one process can win, as the
 *   mail sender claims outbox rows), then in one transaction re-reads the row, gathers the facts,
 *   queues at most one mail (outbox key `chat-reply:<first reply id>`, unique: even two deciders
 *   could not queue two) and records the outcome (`mailed` or `skipped`). Either way the burst stays
 *   until the member reads: no second mail for it.
 */

import type { Queryable } from '../db/types.js';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { findMemberStanding, mailLimitsFor } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Started } from '../kernel/module.js';
import { enqueueMail, mailsQueuedSince } from '../mail/index.js';
import { ERASURE_EVENT } from '../shredding/index.js';
import type { ChatEvent } from './chat.decider.js';
import { lastSeen } from './presence.js';
import { REPLY_MAIL_MAX_AGE_MS, type ReplyMailOutcome, replyMail, replyMailOutcome } from './replyMail.policy.js';

/** How long a claimed burst is this worker's before another may decide it (a worker that died). */
export const REPLY_MAIL_LEASE_MS = 60_000;
const DAY_MS = 24 * 60 * 60_000;
export const replyMailKey = (burstId: string) => `chat-reply:${burstId}`;

export interface ReplyBurstRow {
  user_id: string;
  burst_id: string;
  started_at: string;
  state: 'waiting' | 'mailed' | 'skipped';
  lease_until: string | null;
  decided_at: string | null;
  outcome: ReplyMailOutcome | null;
}

/** Opens and closes the bursts from the chat's events (the work state the worker decides on). */
export function replyBurstSubscriber(ctx: AppContext): Subscriber {
  return {
    name: 'chat-reply-mail',
    types: ['ChatMessageSent', 'ChatMessagesRead', ERASURE_EVENT],
    async handle(tx, recorded) {
      if (recorded.type === ERASURE_EVENT) {
        const userId = (recorded.data as { userId?: string }).userId;
        if (userId) {
          await tx.run('DELETE FROM chat_reply_mails WHERE user_id = ?', [userId]);
          await tx.run('DELETE FROM chat_presence WHERE user_id = ?', [userId]);
        }
        return;
      }
      if (!recorded.streamId.startsWith('chat-')) return;
      const event = recorded as unknown as ChatEvent & RecordedEvent;
      if (event.type === 'ChatMessageSent' && event.data.from === 'admin') {
        // Replies from before a long outage, or from before this feature (a first catch-up from the
        // start of the log), open no burst: nobody wants mail about last month's reply.
        if (ctx.clock.now().getTime() - Date.parse(event.data.sentAt) > REPLY_MAIL_MAX_AGE_MS) return;
        await tx.run(
          `INSERT INTO chat_reply_mails (user_id, burst_id, started_at, state) VALUES (?, ?, ?, 'waiting')
           ON CONFLICT (user_id) DO NOTHING`,
          [event.data.userId, event.data.messageId, event.data.sentAt],
        );
      } else if (event.type === 'ChatMessagesRead' && event.data.reader === 'member') {
        await tx.run('DELETE FROM chat_reply_mails WHERE user_id = ?', [event.data.userId]);
      }
    },
  };
}

/** Claims a waiting burst for this worker; only one process's UPDATE changes the row. */
async function claimBurst(q: Queryable, row: ReplyBurstRow, now: Date): Promise<boolean> {
  const r = await q.run(
    `UPDATE chat_reply_mails SET lease_until = ?
      WHERE user_id = ? AND burst_id = ? AND state = 'waiting' AND (lease_until IS NULL OR lease_until <= ?)`,
    [new Date(now.getTime() + REPLY_MAIL_LEASE_MS).toISOString(), row.user_id, row.burst_id, now.toISOString()],
  );
  return r.changes === 1;
}

/** Decides one claimed burst: at most one mail, and the outcome, in one transaction. */
async function decideBurst(ctx: AppContext, claimed: ReplyBurstRow): Promise<ReplyMailOutcome | undefined> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await tx.get<ReplyBurstRow>(`SELECT * FROM chat_reply_mails WHERE user_id = ?${ctx.db.selectForUpdateSuffix}`, [
      claimed.user_id,
    ]);
    // Read (and perhaps reopened by a newer reply) or decided meanwhile: not this worker's any more.
    if (!row || row.burst_id !== claimed.burst_id || row.state !== 'waiting') return undefined;
    const userId = row.user_id;
    const member = await findMemberStanding(tx, userId);
    const setting = await tx.get<{ enabled: number }>('SELECT enabled FROM chat_reply_mail WHERE user_id = ?', [userId]);
    const conv = await tx.get<{ member_unread: number }>('SELECT member_unread FROM chat_conversations WHERE user_id = ?', [userId]);
    const mailedToday = await mailsQueuedSince(tx, userId, replyMailKey(''), new Date(now.getTime() - DAY_MS));
    let outcome = replyMailOutcome({
      member,
      enabled: setting ? Number(setting.enabled) === 1 : true,
      unread: Number(conv?.member_unread ?? 0),
      seenAt: await lastSeen(tx, userId),
      startedAt: row.started_at,
      now,
      mailedToday,
      perDay: ctx.env.CHAT_MAILS_PER_MEMBER_PER_DAY,
    });
    if (outcome === 'mailed' && member) {
      if (await mailLimitsFor(ctx).allow('reply', member.email, userId)) {
        const mail = replyMail(linkOrigin(ctx));
        await enqueueMail(ctx.db.dialect, tx, { key: replyMailKey(row.burst_id), subjectId: userId, to: member.email, ...mail }, now);
      } else outcome = 'mail_limit';
    }
    await tx.run(
      `UPDATE chat_reply_mails SET state = ?, outcome = ?, decided_at = ?, lease_until = NULL WHERE user_id = ? AND burst_id = ?`,
      [outcome === 'mailed' ? 'mailed' : 'skipped', outcome, now.toISOString(), userId, row.burst_id],
    );
    return outcome;
  });
}

/**
 * One pass: decides every burst older than CHAT_MAIL_DELAY_SECONDS that this worker can claim;
 * resolves with the outcomes. Safe to run in several processes at once.
 */
export async function decideDueReplyMails(ctx: AppContext, limit = 100): Promise<ReplyMailOutcome[]> {
  const now = ctx.clock.now();
  const dueBefore = new Date(now.getTime() - ctx.env.CHAT_MAIL_DELAY_SECONDS * 1000).toISOString();
  const due = await ctx.db.all<ReplyBurstRow>(
    `SELECT * FROM chat_reply_mails WHERE state = 'waiting' AND started_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
      ORDER BY started_at LIMIT ?`,
    [dueBefore, now.toISOString(), limit],
  );
  const outcomes: ReplyMailOutcome[] = [];
  for (const row of due) {
    if (!(await claimBurst(ctx.db, row, now))) continue;
    const outcome = await decideBurst(ctx, row);
    if (outcome) outcomes.push(outcome);
  }
  return outcomes;
}

/** The worker's pace: a quarter of the delay, between 250 ms and 15 s. */
export const replyMailPollMs = (delaySeconds: number) => Math.min(15_000, Math.max(250, delaySeconds * 250));

export function startReplyMailer(ctx: AppContext): Started {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    running = running.then(() => decideDueReplyMails(ctx)).catch((err) => ctx.logger.error({ err }, 'chat reply mails failed; will retry'));
  }, replyMailPollMs(ctx.env.CHAT_MAIL_DELAY_SECONDS));
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
