/**
 * "Download my data" (GDPR articles 15 and 20): everything the site stores about a member, as one
 * JSON document and a readable HTML rendering of the same content. Read from the read models
 * (profile, payments, subscription, second factor, sessions, chat messages, custom video requests) and from the member's own events
 * (account history, subscription periods, views), decoded like every reader decodes them. Secrets
 * (password and token hashes, recovery-code hashes, the TOTP secret) are never included: they are
 * not information about the person, and a leaked export must not become a way in.
 */

import { satsToBtc } from '@members/ui/money';
import { replyMailEnabled } from '../chat/index.js';
import type { AppContext } from '../context.js';
import { rowToEvent } from '../eventstore/sqlEventStore.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { findSecondFactor, findUserById, geoLocationOf, userStream } from '../identity/index.js';
import { failure, type Result, success } from '../shared/result.js';

const SECRET_FIELD = /^(passwordHash|tokenHash|codeHash|recoveryCodeHashes)$/;

export interface MemberExport {
  exportedAt: string;
  site: string;
  member: Record<string, unknown>;
  accountHistory: { at: string; event: string; details: Record<string, unknown> }[];
  payments: Record<string, unknown>[];
  subscription: Record<string, unknown> | null;
  subscriptionPeriods: { at: string; event: string; planType: string; periodStart: string; periodEnd: string; paymentId: string }[];
  views: { videoId: string; watchedSeconds: number; viewedAt: string }[];
  secondFactor: { enabled: boolean; enrolledAt: string | null; recoveryCodesLeft: number };
  sessions: { id: string; createdAt: string; revokedAt: string | null }[];
  /** The member's chat with the team (chat/), both sides, as it reads now (deleted messages are gone). */
  chatMessages: { id: string; from: string; text: string; sentAt: string }[];
  /** The member's custom video requests (customRequests/), as they read now. */
  customRequests: Record<string, unknown>[];
  /** The member's mail settings (account settings): the mail when the team replies while they are offline. */
  notifications: { chatReplyMail: boolean };
  notes: string[];
}

const withoutSecrets = (data: Record<string, unknown>) => Object.fromEntries(Object.entries(data).filter(([k]) => !SECRET_FIELD.test(k)));

async function eventsOfStreams(ctx: AppContext, pattern: string): Promise<RecordedEvent[]> {
  const rows = await ctx.db.all<Parameters<typeof rowToEvent>[0]>('SELECT * FROM events WHERE stream_id LIKE ? ORDER BY position', [
    pattern,
  ]);
  return ctx.shredder.open(ctx.db, rows.map(rowToEvent));
}

/** The member's data; `not_found` for an unknown or erased member. */
export async function exportMemberData(ctx: AppContext, userId: string): Promise<Result<MemberExport>> {
  const user = await findUserById(ctx.db, userId);
  if (!user || user.erased_at) return failure('user.not_found', 'User not found');
  const own = await ctx.store.readStream(userStream(userId));
  const subscriptionEvents = await ctx.store.readStream(`subscription-${userId}`);
  // `_` in an id is a LIKE wildcard: the suffix is checked exactly.
  const views = (await eventsOfStreams(ctx, `video-views-%-${userId}`)).filter((e) => e.streamId.endsWith(`-${userId}`));
  const payments = await ctx.db.all<Record<string, unknown>>(
    'SELECT * FROM billing_payments WHERE user_id = ? ORDER BY COALESCE(requested_at, submitted_at), id',
    [userId],
  );
  const subscription = await ctx.db.get<Record<string, unknown>>('SELECT * FROM billing_subscriptions WHERE user_id = ?', [userId]);
  const factor = await findSecondFactor(ctx.db, userId);
  const sessions = await ctx.db.all<{ id: string; created_at: string; revoked_at: string | null }>(
    'SELECT id, created_at, revoked_at FROM refresh_sessions WHERE user_id = ? ORDER BY created_at, id',
    [userId],
  );
  const chat = await ctx.db.all<{ id: string; sender: string; text: string; sent_at: string }>(
    'SELECT id, sender, text, sent_at FROM chat_messages WHERE user_id = ? AND deleted_at IS NULL ORDER BY position',
    [userId],
  );
  const requests = await ctx.db.all<Record<string, unknown>>(
    `SELECT id, status, description, amount_sats AS "amountSats", payment_id AS "paymentId", video_id AS "videoId",
            decline_reason AS "declineReason", requested_at AS "requestedAt", updated_at AS "updatedAt"
       FROM custom_requests WHERE user_id = ? ORDER BY requested_at, id`,
    [userId],
  );
  return success({
    exportedAt: ctx.clock.now().toISOString(),
    site: ctx.site.siteName,
    member: {
      id: user.id,
      email: user.email,
      firstName: user.first_name,
      lastName: user.last_name,
      dateOfBirth: user.date_of_birth,
      role: user.role,
      status: user.status,
      emailVerified: Number(user.email_verified) === 1,
      registeredAt: user.created_at,
      approvedAt: user.approved_at,
      rejectedAt: user.rejected_at,
      locationAtRegistration: geoLocationOf(user),
      membershipStatus: user.membership_status,
      subscriptionStatus: user.subscription_status,
    },
    accountHistory: own.map((e) => ({
      at: e.metadata.at ?? e.recordedAt,
      event: e.type,
      details: withoutSecrets(e.data as Record<string, unknown>),
    })),
    payments: payments.map((p) => ({
      id: p.id,
      planType: p.plan_type,
      amountSats: Number(p.amount_sats),
      btcAmount: satsToBtc(Number(p.amount_sats)),
      status: p.status,
      address: p.address ?? null,
      transactionHash: p.tx_hash ?? null,
      requestedAt: p.requested_at ?? null,
      submittedAt: p.submitted_at ?? null,
      verifiedAt: p.verified_at ?? null,
      rejectedAt: p.rejected_at ?? null,
      rejectReason: p.reject_reason ?? null,
    })),
    subscription: subscription
      ? {
          id: subscription.subscription_id,
          planType: subscription.plan_type,
          status: subscription.status,
          cancelAtPeriodEnd: Number(subscription.cancel_at_period_end) === 1,
          currentPeriodStart: subscription.current_period_start,
          currentPeriodEnd: subscription.current_period_end,
        }
      : null,
    subscriptionPeriods: subscriptionEvents.map((e) => {
      const d = e.data as Record<string, unknown>;
      return {
        at: e.metadata.at ?? e.recordedAt,
        event: e.type,
        planType: String(d.planType ?? ''),
        periodStart: String(d.periodStart ?? ''),
        periodEnd: String(d.periodEnd ?? ''),
        paymentId: String(d.paymentId ?? ''),
      };
    }),
    views: views
      .filter((e) => e.type === 'ViewRecorded')
      .map((e) => {
        const d = e.data as Record<string, unknown>;
        return { videoId: String(d.videoId), watchedSeconds: Number(d.watchedSeconds), viewedAt: String(d.viewedAt) };
      }),
    secondFactor: {
      enabled: factor?.status === 'enabled',
      enrolledAt: factor?.enrolled_at ?? null,
      recoveryCodesLeft: factor?.status === 'enabled' ? Number(factor.recovery_codes_left) : 0,
    },
    sessions: sessions.map((s) => ({ id: s.id, createdAt: s.created_at, revokedAt: s.revoked_at })),
    chatMessages: chat.map((m) => ({ id: m.id, from: m.sender, text: m.text, sentAt: m.sent_at })),
    customRequests: requests.map((r) => ({ ...r, amountSats: r.amountSats === null ? null : Number(r.amountSats) })),
    notifications: { chatReplyMail: await replyMailEnabled(ctx, userId) },
    notes: [
      'Password, reset-token and recovery-code hashes and the second-factor secret are stored but never exported.',
      'Your personal fields are encrypted in the event log with a key of your own; deleting your account destroys that key.',
      'Payment records (amounts, dates, plan, transaction hashes) are kept after deletion for accounting, without your name or e-mail address.',
    ],
  });
}

const esc = (v: unknown) =>
  String(v ?? '').replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '<p>None.</p>';
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => esc(v !== null && typeof v === 'object' ? JSON.stringify(v) : v);
  return `<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${cols.map((c) => `<td>${cell(r[c])}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** The same content as a self-contained HTML page (no scripts, no external resources). */
export function renderExportHtml(x: MemberExport): string {
  const member = Object.entries(x.member).map(([k, v]) => ({ field: k, value: v }));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Your data at ${esc(x.site)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}</style>
</head><body>
<h1>Your data at ${esc(x.site)}</h1>
<p>Exported ${esc(x.exportedAt)}.</p>
<h2>Profile</h2>${table(member)}
<h2>Account history</h2>${table(x.accountHistory)}
<h2>Payments</h2>${table(x.payments)}
<h2>Subscription</h2>${table(x.subscription ? [x.subscription] : [])}
<h2>Subscription periods</h2>${table(x.subscriptionPeriods)}
<h2>Views</h2>${table(x.views)}
<h2>Two-factor authentication</h2>${table([x.secondFactor])}
<h2>Sessions</h2>${table(x.sessions)}
<h2>Chat messages</h2>${table(x.chatMessages)}
<h2>Custom video requests</h2>${table(x.customRequests)}
<h2>Mail settings</h2>${table([x.notifications])}
<h2>Notes</h2><ul>${x.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>
</body></html>
`;
}
