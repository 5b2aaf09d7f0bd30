/**
 * How many mails a caller can make us send: anyone can ask for a password reset or register with any
 * address, and a not-yet-approved account can cause mails too, so without a bound our mail server
 * becomes theirs (and our sending reputation with it). Two kinds, each counted per hour:
 * - `request`: mails with a link that someone other than the holder may have asked for (sign-up
 *   and verification, password reset, "someone tried to register with your address", the link to a
 *   new address): per recipient address (`MAILS_PER_RECIPIENT_PER_HOUR`) and per account
 *   (`MAILS_PER_ACCOUNT_PER_HOUR`);
 * - `notice`: security notices to the holder about their own account (second factor, password or
 *   address changed): per account, in a budget of their own, so a flood of anonymous requests
 *   cannot use up the notices that would tell the holder of a takeover.
 * - `reply`: the chat's "You have a new reply" mail (chat/replyMail.ts): counted against the same
 *   per-recipient limit (it is mail to that address) and refused beyond it; the chat bounds it further.
 * The admin's decisions (approved, rejected) are not limited. Beyond a limit nothing is sent and the
 * API answers exactly as before (the limit is applied where the mail is queued, after the answer).
 * Recipients are counted under an HMAC, never in clear; on PostgreSQL the counters are shared by
 * every API process.
 */

import { createRateLimiter, type RateLimiter } from '../db/rateLimit.js';
import type { AppContext } from '../kernel/context.js';
import { keyedByHmac } from './limits.js';

export type MailKind = 'request' | 'notice' | 'reply';

export interface MailLimits {
  /** Counts one mail of `kind` to `recipient` for `accountId`; false (nothing to send) beyond a limit. */
  allow(kind: MailKind, recipient: string, accountId: string): Promise<boolean>;
}

const HOUR_MS = 60 * 60_000;

function createMailLimits(ctx: AppContext): MailLimits {
  const now = () => ctx.clock.now().getTime();
  const secret = ctx.env.TOKEN_SECRET ?? 'mail-limits';
  const counter = (scope: string, limit: number): RateLimiter =>
    keyedByHmac(createRateLimiter(ctx.db, scope, limit, HOUR_MS, now), secret, scope);
  const perRecipient = counter('mail-recipient', ctx.env.MAILS_PER_RECIPIENT_PER_HOUR);
  const perAccount = counter('mail-account', ctx.env.MAILS_PER_ACCOUNT_PER_HOUR);
  const noticesPerAccount = counter('mail-notice-account', ctx.env.MAILS_PER_ACCOUNT_PER_HOUR);

  return {
    async allow(kind, recipient, accountId) {
      if (kind === 'notice') return noticesPerAccount.hit(accountId);
      const to = recipient.trim().toLowerCase();
      if (kind === 'reply') return !(await perRecipient.isBlocked(to)) && (await perRecipient.hit(to));
      // A refused mail is not counted against the other limit.
      if ((await perRecipient.isBlocked(to)) || (await perAccount.isBlocked(accountId))) return false;
      const [toOk, accountOk] = [await perRecipient.hit(to), await perAccount.hit(accountId)];
      return toOk && accountOk;
    },
  };
}

const byContext = new WeakMap<AppContext, MailLimits>();

/** The mail limits of this context: one set of counters for the mail subscriber and the routes that queue mail. */
export function mailLimitsFor(ctx: AppContext): MailLimits {
  let limits = byContext.get(ctx);
  if (!limits) {
    limits = createMailLimits(ctx);
    byContext.set(ctx, limits);
  }
  return limits;
}
