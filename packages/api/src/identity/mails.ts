/**
 * The identity e-mails' wording: pure functions from the event's facts to subject and text. A name
 * is the one thing in them a caller chose, so it goes in through `plainName` (see there).
 */
export interface MailText {
  subject: string;
  text: string;
}

/** The longest name a mail greets with. */
export const MAIL_NAME_MAX = 40;

/** Tokens a mail reader (or its client) would take for a link: schemes, www., domain names, addresses, IPs. */
const LINK_LIKE = /:\/\/|^www[.\u3002\uff0e\uff61]|@|[\p{L}\p{N}-]{2,}[.\u3002\uff0e\uff61][\p{L}]{2,}|\d+\.\d+\.\d+\.\d+/iu;
/* (Full stops include the ideographic and full-width ones, which some clients also link.) */

/**
 * A name as plain text for a mail: control and format characters (line breaks, bidi overrides,
 * zero-width ones) removed, anything that looks like a link (`https://…`, `www.…`, `phish.example/win`,
 * an address) dropped, whitespace collapsed, and at most MAIL_NAME_MAX characters; "there" when nothing
 * is left. So a pending account named "friend! Claim your prize at https://phish.example/win" cannot
 * put a link in a mail to someone else.
 * @example plainName('friend! Claim your prize at https://phish.example/win') // 'friend! Claim your prize at'
 */
export function plainName(name: string, fallback = 'there'): string {
  const words = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w && !LINK_LIKE.test(w));
  const text = words.join(' ');
  const capped =
    [...text].length > MAIL_NAME_MAX
      ? `${[...text]
          .slice(0, MAIL_NAME_MAX - 1)
          .join('')
          .trimEnd()}…`
      : text;
  return capped || fallback;
}

export function registrationReceivedMail(site: string, firstName: string): MailText {
  return {
    subject: `${site}: we received your registration`,
    text: `Hi ${plainName(firstName)},

Thank you for registering with ${site}. Every account is reviewed manually by our team; review takes 24-48 hours.
We will e-mail you as soon as your account has been approved. After approval you can buy a subscription (Bitcoin only).

Please check your spam folder if you do not hear from us.

${site}`,
  };
}

export function verifyEmailMail(site: string, firstName: string, link: string): MailText {
  return {
    subject: `${site}: please verify your e-mail address`,
    text: `Hi ${plainName(firstName)},

Please confirm that this is your e-mail address by opening this link:

${link}

If you did not register with ${site}, you can ignore this message.

${site}`,
  };
}

export function approvedMail(site: string, firstName: string, loginUrl: string): MailText {
  return {
    subject: `${site}: your account has been approved`,
    text: `Hi ${plainName(firstName)},

Good news: your account has been approved. You can now log in, watch the free videos and subscribe for premium content:

${loginUrl}

${site}`,
  };
}

export function rejectedMail(site: string, firstName: string, reason: string | null | undefined): MailText {
  return {
    subject: `${site}: your registration was not approved`,
    text: `Hi ${plainName(firstName)},

We are sorry: after review, your registration was not approved.${reason ? `\n\nReason: ${reason}` : ''}

If you believe this is a mistake, please contact support.

${site}`,
  };
}

export function passwordResetMail(site: string, firstName: string, link: string): MailText {
  return {
    subject: `${site}: reset your password`,
    text: `Hi ${plainName(firstName)},

Someone (hopefully you) asked to reset the password of your account. Open this link within one hour to choose a new password:

${link}

The link works once. If you did not ask for this, you can ignore this message; your password stays the same.

${site}`,
  };
}

/** A security notice after a second-factor change, so an unexpected one is noticed. */
export function secondFactorMail(
  site: string,
  firstName: string,
  change: 'enabled' | 'removed' | 'recovery-code-used',
  left = 0,
): MailText {
  const what = {
    enabled: 'Two-factor authentication was turned on for your account.',
    removed: 'Two-factor authentication was turned off for your account.',
    'recovery-code-used': `A recovery code was used to sign in to your account. ${left} recovery code${left === 1 ? '' : 's'} left.`,
  }[change];
  return {
    subject: `${site}: ${change === 'enabled' ? 'two-factor authentication turned on' : change === 'removed' ? 'two-factor authentication turned off' : 'a recovery code was used'}`,
    text: `Hi ${plainName(firstName)},

${what}

If this was not you, reset your password now and contact support.

${site}`,
  };
}

/** An instant as a mail says it: minutes, UTC, unambiguous whatever the reader's locale. */
export const mailTime = (iso: string) => `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A security notice after a passkey was added or removed (issue 42): a passkey signs in without the
 * password, so an unexpected one must be noticed. Names the passkey (as plain text) and the time.
 */
export function passkeyMail(
  site: string,
  firstName: string,
  change: 'added' | 'removed',
  passkey: { name: string; at: string },
  resetUrl: string,
): MailText {
  const name = plainName(passkey.name, 'unnamed');
  const what =
    change === 'added'
      ? `A passkey named "${name}" was added to your account on ${mailTime(passkey.at)}. It can now sign in to your account without your password.`
      : `The passkey named "${name}" was removed from your account on ${mailTime(passkey.at)}. It can no longer sign in to your account.`;
  return {
    subject: `${site}: a passkey was ${change === 'added' ? 'added to' : 'removed from'} your account`,
    text: `Hi ${plainName(firstName)},

${what}

If this was not you, reset your password now (every device signed in to your account is signed out), remove any passkey you do not recognise in your account settings, and contact support:

${resetUrl}

${site}`,
  };
}

/** After a signed-in password change: every other session has ended; tell the holder in case it was not them. */
export function passwordChangedMail(site: string, firstName: string, resetUrl: string): MailText {
  return {
    subject: `${site}: your password was changed`,
    text: `Hi ${plainName(firstName)},

The password of your account was just changed, and every other device signed in to your account was signed out.

If this was not you, reset your password now and contact support:

${resetUrl}

${site}`,
  };
}

/** To the new address: the link that completes an e-mail change. */
export function confirmEmailChangeMail(site: string, firstName: string, link: string): MailText {
  return {
    subject: `${site}: confirm your new e-mail address`,
    text: `Hi ${plainName(firstName)},

You asked to use this e-mail address for your ${site} account. Open this link within 24 hours to confirm the change:

${link}

Until you do, your account keeps its current address. If you did not ask for this, you can ignore this message.

${site}`,
  };
}

/** To the old address, once the change is done, so an unexpected change is noticed. */
export function emailChangedMail(site: string, firstName: string, newEmail: string): MailText {
  return {
    subject: `${site}: your e-mail address was changed`,
    text: `Hi ${plainName(firstName)},

The e-mail address of your account was changed to ${newEmail}. From now on we write to that address, and you log in with it.

If this was not you, contact support right away.

${site}`,
  };
}

/**
 * To the holder of an address someone tried to register with: registration answers the same for a
 * used address as for a new one (so it does not tell who has an account), and the holder learns of it here.
 */
export function registrationAttemptMail(site: string, firstName: string, loginUrl: string, resetUrl: string): MailText {
  return {
    subject: `${site}: someone tried to register with your e-mail address`,
    text: `Hi ${plainName(firstName)},

Someone tried to register a new ${site} account with this e-mail address, which already has an account. No new account was created.

If it was you, sign in or reset your password:

${loginUrl}
${resetUrl}

If it was not you, you can ignore this message; your account is unchanged.

${site}`,
  };
}

/** An invitation to the creator's team (issue 42): the single-use link to choose a password and a name. */
export function staffInvitationMail(site: string, roleLabel: string, link: string): MailText {
  return {
    subject: `${site}: you are invited to the team`,
    text: `Hello,

You are invited to help run ${site} as ${roleLabel}. Open this link within 72 hours to choose your password and the name the team will see:

${link}

The link works once. If you did not expect this, you can ignore this message; no account is made without it.

${site}`,
  };
}
