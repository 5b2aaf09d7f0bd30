/**
 * Identity's checkpointed subscriber: turns registrations, approvals, rejections, reset requests,
 * account-settings changes (password changed, e-mail change link and notice), second-factor and
 * passkey changes (a security notice; a passkey's names it and the time) and staff invitations into
 * outbox rows in the same transaction as its checkpoint, keyed by the event id, so a crash or a
 * replay never loses or doubles a mail. The mail module's sender delivers them. Each write checks
 * in that transaction that the member still has their data key, exclusive with their erasure
 * (shredding/personalWrites.ts): a mail for a member erased meanwhile is not written. Every mail but the
 * admin's decisions is counted against the mail limits (mailLimits.ts) and not queued beyond them.
 */

import { STAFF_ROLE_LABELS } from '@members/ui/staffRoles';
import type { Queryable } from '../db/types.js';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { tokenSecret } from '../http/auth.js';
import { publicUrl } from '../http/linkOrigin.js';
import type { AppContext } from '../kernel/context.js';
import { enqueueMail } from '../mail/index.js';
import { type MailKind, mailLimitsFor } from './mailLimits.js';
import {
  approvedMail,
  confirmEmailChangeMail,
  emailChangedMail,
  type MailText,
  passkeyMail,
  passwordChangedMail,
  passwordResetMail,
  registrationReceivedMail,
  rejectedMail,
  secondFactorMail,
  staffInvitationMail,
  verifyEmailMail,
} from './mails.js';
import type { PasskeyEvent } from './passkey.decider.js';
import type { SecondFactorEvent } from './secondFactor.decider.js';
import { emailChangeToken, emailVerificationToken, resetToken, staffInvitationToken } from './tokens.js';
import { SYSTEM_ACTOR, type UserEvent, userStream } from './user.decider.js';
import { findUserById } from './users.queries.js';

/** A mail to queue: its idempotency key, whose it is, where it goes, and the limit it counts against. */
interface Outgoing {
  key: string;
  subjectId: string;
  to: string;
  mail: MailText;
  limited?: MailKind | undefined;
}

/** What each mail needs besides the event: the site's name, the links' origin, the tokens' secret. */
interface MailSetting {
  site: string;
  origin: string;
  secret: string;
  /** The name a passkey was registered with (a removal's event names only its id). */
  passkeyName: (userId: string, passkeyId: string) => Promise<string>;
}

/** The mails one identity event sends (none for most): read in the subscriber's transaction. */
async function mailsOf(tx: Queryable, recorded: RecordedEvent, { site, origin, secret, passkeyName }: MailSetting): Promise<Outgoing[]> {
  const event = recorded as unknown as (UserEvent | SecondFactorEvent | PasskeyEvent) & RecordedEvent;
  const mails: Outgoing[] = [];
  const out = (key: string, subjectId: string, to: string, mail: MailText, limited?: MailKind) => {
    mails.push({ key, subjectId, to, mail, limited });
  };
  switch (event.type) {
    case 'UserRegistered': {
      const d = event.data;
      if (d.role === 'admin') return mails; // the bootstrapped admin is not a registration
      out(`registration-received:${recorded.eventId}`, d.userId, d.email, registrationReceivedMail(site, d.firstName), 'request');
      const token = emailVerificationToken(secret, d.userId, d.email);
      const link = `${origin}/auth/verify-email?token=${encodeURIComponent(token)}`;
      out(`verify-email:${recorded.eventId}`, d.userId, d.email, verifyEmailMail(site, d.firstName, link), 'request');
      return mails;
    }
    case 'UserApproved': {
      if (event.data.approvedBy === SYSTEM_ACTOR) return mails;
      const user = await findUserById(tx, event.data.userId);
      if (user) out(`user-approved:${recorded.eventId}`, user.id, user.email, approvedMail(site, user.first_name, `${origin}/login`));
      return mails;
    }
    case 'UserRejected': {
      const user = await findUserById(tx, event.data.userId);
      if (user) out(`user-rejected:${recorded.eventId}`, user.id, user.email, rejectedMail(site, user.first_name, event.data.reason));
      return mails;
    }
    case 'PasswordResetRequested': {
      const user = await findUserById(tx, event.data.userId);
      const link = `${origin}/auth/forgot-password?token=${encodeURIComponent(resetToken(secret, event.data.resetId))}`;
      if (user) out(`password-reset:${recorded.eventId}`, user.id, user.email, passwordResetMail(site, user.first_name, link), 'request');
      return mails;
    }
    case 'PasswordChanged': {
      // Only the member's own change from the settings page; a reset was asked for by mail already.
      if (event.data.via !== 'user') return mails;
      const user = await findUserById(tx, event.data.userId);
      const reset = `${origin}/auth/forgot-password`;
      if (user)
        out(`password-changed:${recorded.eventId}`, user.id, user.email, passwordChangedMail(site, user.first_name, reset), 'notice');
      return mails;
    }
    case 'EmailChangeRequested': {
      const d = event.data;
      // A member erased before this mail was queued: their addresses now read as placeholders.
      if (!d.newEmail.includes('@')) return mails;
      const user = await findUserById(tx, d.userId);
      const link = `${origin}/auth/confirm-email?token=${encodeURIComponent(emailChangeToken(secret, d.userId, d.changeId))}`;
      if (user)
        out(`email-change:${recorded.eventId}`, d.userId, d.newEmail, confirmEmailChangeMail(site, user.first_name, link), 'request');
      return mails;
    }
    case 'EmailChanged': {
      const d = event.data;
      if (!d.previousEmail.includes('@')) return mails;
      const user = await findUserById(tx, d.userId);
      if (user)
        out(`email-changed:${recorded.eventId}`, d.userId, d.previousEmail, emailChangedMail(site, user.first_name, d.email), 'notice');
      return mails;
    }
    case 'StaffInvited': {
      const d = event.data;
      // A placeholder once the invitee's data key is gone: no mail.
      if (!d.email.includes('@')) return mails;
      const link = `${origin}/auth/staff-invitation?token=${encodeURIComponent(staffInvitationToken(secret, d.invitationId))}`;
      const mail = staffInvitationMail(site, STAFF_ROLE_LABELS[d.staffRole], link);
      out(`staff-invitation:${recorded.eventId}`, d.userId, d.email, mail, 'request');
      return mails;
    }
    case 'PasskeyRegistered':
    case 'PasskeyRemoved': {
      // A passkey signs in without the password: the holder hears of every one added or removed.
      const d = event.data;
      const user = await findUserById(tx, d.userId);
      if (!user) return mails;
      const passkey =
        event.type === 'PasskeyRegistered'
          ? { name: event.data.name, at: event.data.registeredAt }
          : { name: await passkeyName(d.userId, d.passkeyId), at: event.data.removedAt };
      const change = event.type === 'PasskeyRegistered' ? 'added' : 'removed';
      const mail = passkeyMail(site, user.first_name, change, passkey, `${origin}/auth/forgot-password`);
      out(`passkey-${change}:${recorded.eventId}`, user.id, user.email, mail, 'notice');
      return mails;
    }
    case 'SecondFactorEnrolled':
    case 'SecondFactorRemoved':
    case 'RecoveryCodeUsed': {
      const user = await findUserById(tx, event.data.userId);
      const change =
        event.type === 'SecondFactorEnrolled' ? 'enabled' : event.type === 'SecondFactorRemoved' ? 'removed' : 'recovery-code-used';
      const left = event.type === 'RecoveryCodeUsed' ? event.data.remaining : 0;
      if (user)
        out(`second-factor:${recorded.eventId}`, user.id, user.email, secondFactorMail(site, user.first_name, change, left), 'notice');
      return mails;
    }
  }
  return mails;
}

export function identityMailSubscriber(ctx: AppContext): Subscriber {
  const limits = mailLimitsFor(ctx);

  /** The newest name the account's stream gave the passkey (events are never rewritten: the registration is there). */
  async function passkeyName(userId: string, passkeyId: string): Promise<string> {
    const events = await ctx.store.readStream(userStream(userId));
    const registered = events.findLast((e) => e.type === 'PasskeyRegistered' && (e.data as { passkeyId?: string }).passkeyId === passkeyId);
    return (registered?.data as { name?: string } | undefined)?.name ?? '';
  }

  /** Queues the mail; a `limited` one only within the mail limits (else it is dropped, see mailLimits.ts). */
  async function send(tx: Queryable, { key, subjectId, to, mail, limited }: Outgoing) {
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
      'StaffInvited',
      'PasskeyRegistered',
      'PasskeyRemoved',
    ],
    async handle(tx, recorded) {
      // Links point at PUBLIC_URL alone, never at an origin stored with the event (events recorded by
      // an earlier version carry the request's Host, which the caller chose).
      const setting = { site: ctx.site.siteName, origin: publicUrl(ctx.env), secret: tokenSecret(ctx), passkeyName };
      for (const mail of await mailsOf(tx, recorded, setting)) await send(tx, mail);
    },
  };
}
