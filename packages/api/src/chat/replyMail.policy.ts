/**
 * Whether a member gets the mail for a burst of team replies (issue 30 item 6), and its words. Pure:
 * the worker (replyMail.ts) gathers the facts, in the transaction that records the outcome.
 *
 * A burst is the team's replies from the first one after the member's last read: one mail at most
 * per burst, only to an approved member (not suspended, rejected, pending or erased) who kept the
 * setting on, has still not read it, was not online since it began (a chat socket, the unread
 * badge), within the daily cap; then no other until they read. The mail is discreet (an adult
 * site's mail lands in shared inboxes): no message text, no name, not even the site's; a link to
 * `/chat` and one to the settings, which `List-Unsubscribe` names too.
 */
import { CHAT_REPLY_MAIL_LABEL } from '@members/ui/api/schemas';

export type ReplyMailOutcome =
  | 'mailed'
  /** The member read the replies (or they were deleted) before the delay ran out. */
  | 'read'
  /** The member was online since the burst began: the reply reached them live. */
  | 'online'
  | 'opted_out'
  /** Not an approved member now: suspended, rejected, pending, erased, an admin. */
  | 'not_active'
  | 'daily_cap'
  /** The per-recipient mail limit (identity/mailLimits.ts) refused it. */
  | 'mail_limit'
  /** Older than REPLY_MAIL_MAX_AGE_MS (a server down that long, or replies from before this feature). */
  | 'stale';

/** A burst this old gets no mail any more. */
export const REPLY_MAIL_MAX_AGE_MS = 24 * 60 * 60_000;

export interface ReplyMailFacts {
  /** The member's account now; undefined once erased. */
  member: { role: string; status: string } | undefined;
  /** The member's setting (on unless turned off). */
  enabled: boolean;
  /** The team's replies the member has not read. */
  unread: number;
  /** When the member was last seen online by the chat (null: never). */
  seenAt: string | null;
  /** When the burst's first reply was sent. */
  startedAt: string;
  now: Date;
  /** Reply mails sent to the member in the last 24 hours, and the cap. */
  mailedToday: number;
  perDay: number;
}

/** `mailed` when the mail should go (the per-recipient limit is asked after, as it counts). */
export function replyMailOutcome(f: ReplyMailFacts): ReplyMailOutcome {
  if (f.member?.role !== 'member' || f.member.status !== 'approved') return 'not_active';
  if (f.unread === 0) return 'read';
  if (!f.enabled) return 'opted_out';
  if (f.seenAt !== null && f.seenAt >= f.startedAt) return 'online';
  if (f.now.getTime() - Date.parse(f.startedAt) > REPLY_MAIL_MAX_AGE_MS) return 'stale';
  if (f.mailedToday >= f.perDay) return 'daily_cap';
  return 'mailed';
}

/** Where the mail's links point, from PUBLIC_URL (http/linkOrigin.ts). */
export const chatLink = (origin: string) => `${origin}/chat`;
export const replyMailSettingsLink = (origin: string) => `${origin}/account#notifications`;

export function replyMail(origin: string): { subject: string; text: string; headers: Record<string, string> } {
  return {
    subject: 'You have a new reply',
    text: `Hello,

You have a new reply waiting for you. Sign in to read it:

${chatLink(origin)}

We send this once, and not again until you have read it. To stop these e-mails, untick "${CHAT_REPLY_MAIL_LABEL}" in your account settings:

${replyMailSettingsLink(origin)}
`,
    headers: { 'List-Unsubscribe': `<${replyMailSettingsLink(origin)}>` },
  };
}
