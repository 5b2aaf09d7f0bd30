/**
 * The second factor's primitives: TOTP (RFC 6238 through `otpauth`: SHA-1, 6 digits, 30 s step,
 * ±1 step, what authenticator apps support), the secret's encryption at rest (AES-256-GCM, key
 * derived by HKDF from MFA_KEY_SECRET, the user id as associated data so a blob moved to another
 * account does not decrypt) and the single-use recovery codes (80 random bits each; only their
 * SHA-256 is kept). Pure functions of their inputs: time arrives as a Date.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { sha256 } from './tokens.js';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;

function totpFor(secretBase32: string, label = '', issuer = ''): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
  });
}

/** A fresh 160-bit secret in base32 (the form authenticator apps accept for manual entry). */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI a QR code carries. */
export function totpUri(secretBase32: string, account: string, issuer: string): string {
  return totpFor(secretBase32, account, issuer).toString();
}

/** The code for a time (tests and the e2e compute codes this way, never hard-coded). */
export function totpCode(secretBase32: string, at: Date): string {
  return totpFor(secretBase32).generate({ timestamp: at.getTime() });
}

/**
 * The time step a code matches within ±1 step of `at`, or null. The caller records the step so the
 * same code cannot be used twice.
 * @example totpTimeStep(secret, totpCode(secret, now), now) // Math.floor(now / 30 s)
 */
export function totpTimeStep(secretBase32: string, code: string, at: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpFor(secretBase32);
  const delta = totp.validate({ token: code, timestamp: at.getTime(), window: TOTP_WINDOW });
  if (delta === null) return null;
  return totp.counter({ timestamp: at.getTime() }) + delta;
}

// ── Encryption at rest ──────────────────────────────────────────────────────────────────────────
const KEY_INFO = 'members/second-factor-secret/v1';

function keyFrom(keySecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', keySecret, 'members-mfa', KEY_INFO, 32));
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to the user id. */
export function encryptSecret(keySecret: string, userId: string, secretBase32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(keySecret), iv);
  cipher.setAAD(Buffer.from(userId));
  const ct = Buffer.concat([cipher.update(secretBase32, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The secret, or null when the blob was not made with this key for this user. */
export function decryptSecret(keySecret: string, userId: string, blob: string): string | null {
  const [version, iv, tag, ct] = blob.split('.');
  if (version !== 'v1' || !iv || !tag || !ct) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(keySecret), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(userId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

// ── Recovery codes ──────────────────────────────────────────────────────────────────────────────
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // 32 symbols, no 0/O or 1/I

/** Ten codes like `K7QM-2XHD-9RTA-WN4C` (16 symbols of 5 bits: 80 bits each). */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(16);
    const symbols = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join('');
    return symbols.match(/.{4}/g)?.join('-') ?? symbols;
  });
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export const normalizeRecoveryCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

export const recoveryCodeHash = (code: string) => sha256(`recovery:${normalizeRecoveryCode(code)}`);

/** A TOTP code is six digits; anything else is tried as a recovery code. */
export const looksLikeTotp = (code: string) => /^\d{6}$/.test(code.replace(/\s/g, ''));
