/**
 * Identity's checkpointed subscriber: turns registrations, approvals, rejections, reset requests,
 * account-settings changes (password changed, e-mail change link and notice) and second-factor
 * changes (a security notice) into outbox rows in the same transaction as its checkpoint, keyed by the event id, so a crash or
 * a replay never loses or doubles a mail. The mail module's sender delivers them. Each write checks
 * in that transaction that the member still has their data key, exclusive with their erasure
 * (shredding/personalWrites.ts): a mail for a member erased meanwhile is not written. Every mail but the
 * admin's decisions is counted against the mail limits (mailLimits.ts) and not queued beyond them.
 */
import type { AppContext } from '../kernel/context.js';
import type { Queryable } from '../db/types.js';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { tokenSecret } from '../http/auth.js';
import { publicUrl } from '../http/linkOrigin.js';
import { enqueueMail } from '../mail/index.js';
import { type MailKind, mailLimitsFor } from './mailLimits.js';
import {
  approvedMail,
  confirmEmailChangeMail,
  emailChangedMail,
  type MailText,
  passwordChangedMail,
  passwordResetMail,
  registrationReceivedMail,
  rejectedMail,
  secondFactorMail,
  verifyEmailMail,
} from './mails.js';
import type { SecondFactorEvent } from './secondFactor.decider.js';
import { emailChangeToken, emailVerificationToken, resetToken } from './tokens.js';
import { SYSTEM_ACTOR, type UserEvent } from './user.decider.js';
import { findUserById } from './users.queries.js';

export function identityMailSubscriber(ctx: AppContext): Subscriber {
  const site = ctx.site.siteName;

  const limits = mailLimitsFor(ctx);

  /** Queues the mail; a `limited` one only within the mail limits (else it is dropped, see mailLimits.ts). */
  async function send(tx: Queryable, key: string, subjectId: string, to: string, mail: MailText, limited?: MailKind) {
    if (limited && to.includes('@') && !(await limits.allow(limited, to, subjectId))) return;
    await enqueueMail(ctx.db.dialect, tx, { key, subjectId, to, subject: mail.subject, text: mail.text }, ctx.clock.now());
  }

  return {
    name: 'identity-mail',
    types: [
      'UserRegistered',
      'UserApproved',
      'UserRejected',
      'PasswordResetRequested',
      'PasswordChanged',
      'EmailChangeRequested',
      'EmailChanged',
      'SecondFactorEnrolled',
      'SecondFactorRemoved',
      'RecoveryCodeUsed',
    ],
    async handle(tx, recorded) {
      const event = recorded as unknown as (UserEvent | SecondFactorEvent) & RecordedEvent;
      // Links point at PUBLIC_URL alone, never at an origin stored with the event (events recorded by
      // an earlier version carry the request's Host, which the caller chose).
      const origin = publicUrl(ctx.env);
      switch (event.type) {
        case 'UserRegistered': {
          const d = event.data;
          if (d.role === 'admin') return; // the bootstrapped admin is not a registration
          await send(
            tx,
            `registration-received:${recorded.eventId}`,
            d.userId,
            d.email,
            registrationReceivedMail(site, d.firstName),
            'request',
          );
          const token = emailVerificationToken(tokenSecret(ctx), d.userId, d.email);
          const link = `${origin}/auth/verify-email?token=${encodeURIComponent(token)}`;
          await send(tx, `verify-email:${recorded.eventId}`, d.userId, d.email, verifyEmailMail(site, d.firstName, link), 'request');
          return;
        }
        case 'UserApproved': {
          if (event.data.approvedBy === SYSTEM_ACTOR) return;
          const user = await findUserById(tx, event.data.userId);
          if (user)
            await send(
              tx,
              `user-approved:${recorded.eventId}`,
              user.id,
              user.email,
              approvedMail(site, user.first_name, `${origin}/login`),
            );
          return;
        }
        case 'UserRejected': {
          const user = await findUserById(tx, event.data.userId);
          if (user)
            await send(
              tx,
              `user-rejected:${recorded.eventId}`,
              user.id,
              user.email,
              rejectedMail(site, user.first_name, event.data.reason),
            );
          return;
        }
        case 'PasswordResetRequested': {
          const user = await findUserById(tx, event.data.userId);
          const link = `${origin}/auth/forgot-password?token=${encodeURIComponent(resetToken(tokenSecret(ctx), event.data.resetId))}`;
          if (user)
            await send(
              tx,
              `password-reset:${recorded.eventId}`,
              user.id,
              user.email,
              passwordResetMail(site, user.first_name, link),
              'request',
            );
          return;
        }
        case 'PasswordChanged': {
          // Only the member's own change from the settings page; a reset was asked for by mail already.
          if (event.data.via !== 'user') return;
          const user = await findUserById(tx, event.data.userId);
          const reset = `${origin}/auth/forgot-password`;
          if (user)
            await send(
              tx,
              `password-changed:${recorded.eventId}`,
              user.id,
              user.email,
              passwordChangedMail(site, user.first_name, reset),
              'notice',
            );
          return;
        }
        case 'EmailChangeRequested': {
          const d = event.data;
          // A member erased before this mail was queued: their addresses now read as placeholders.
          if (!d.newEmail.includes('@')) return;
          const user = await findUserById(tx, d.userId);
          const link = `${origin}/auth/confirm-email?token=${encodeURIComponent(emailChangeToken(tokenSecret(ctx), d.userId, d.changeId))}`;
          if (user)
            await send(
              tx,
              `email-change:${recorded.eventId}`,
              d.userId,
              d.newEmail,
              confirmEmailChangeMail(site, user.first_name, link),
              'request',
            );
          return;
        }
        case 'EmailChanged': {
          const d = event.data;
          if (!d.previousEmail.includes('@')) return;
          const user = await findUserById(tx, d.userId);
          if (user)
            await send(
              tx,
              `email-changed:${recorded.eventId}`,
              d.userId,
              d.previousEmail,
              emailChangedMail(site, user.first_name, d.email),
              'notice',
            );
          return;
        }
        case 'SecondFactorEnrolled':
        case 'SecondFactorRemoved':
        case 'RecoveryCodeUsed': {
          const user = await findUserById(tx, event.data.userId);
          const change =
            event.type === 'SecondFactorEnrolled' ? 'enabled' : event.type === 'SecondFactorRemoved' ? 'removed' : 'recovery-code-used';
          const left = event.type === 'RecoveryCodeUsed' ? event.data.remaining : 0;
          if (user)
            await send(
              tx,
              `second-factor:${recorded.eventId}`,
              user.id,
              user.email,
              secondFactorMail(site, user.first_name, change, left),
              'notice',
            );
          return;
        }
      }
    },
  };
}
