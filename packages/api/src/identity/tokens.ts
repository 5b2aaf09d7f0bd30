/**
 * Tokens mailed to users. Events never hold a usable token: the e-mail verification token is an
 * HMAC of the user id and address under TOKEN_SECRET, and a password-reset token is the HMAC of the
 * reset id in `PasswordResetRequested`; only its SHA-256 is stored. So the checkpointed mail
 * subscriber can rebuild the link from the event (and a replay sends the same link), while someone
 * reading the event log cannot reset anyone's password.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function mac(secret: string, purpose: string, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}:${value}`).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function resetToken(secret: string, resetId: string): string {
  return mac(secret, 'password-reset', resetId);
}

/** `<base64url user id>.<mac>`: verifiable without any stored state. */
export function emailVerificationToken(secret: string, userId: string, email: string): string {
  return `${Buffer.from(userId).toString('base64url')}.${mac(secret, 'verify-email', `${userId}:${email.toLowerCase()}`)}`;
}

/** The user id a verification token claims (check it with `emailVerificationToken`). */
export function verificationTokenUserId(token: string): string | null {
  const [id, sig] = token.split('.');
  if (!id || !sig) return null;
  return Buffer.from(id, 'base64url').toString('utf8') || null;
}

/** How long a mailed e-mail change link works. */
export const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * `<base64url user id>.<mac of the change id>`: the link mailed to the new address. Rebuilt by the
 * mail subscriber from `EmailChangeRequested`, which stores only its SHA-256.
 */
export function emailChangeToken(secret: string, userId: string, changeId: string): string {
  return `${Buffer.from(userId).toString('base64url')}.${mac(secret, 'email-change', changeId)}`;
}

/** The token of a staff invitation's link: the HMAC of its id (`StaffInvited` stores only its SHA-256). */
export function staffInvitationToken(secret: string, invitationId: string): string {
  return mac(secret, 'staff-invitation', invitationId);
}
