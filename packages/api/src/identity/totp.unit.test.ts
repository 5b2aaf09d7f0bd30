/** TOTP windows and steps, the secret's encryption at rest, and the recovery codes. */
import { describe, expect, it } from 'vitest';
import {
  decryptSecret,
  encryptSecret,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  TOTP_PERIOD_SECONDS,
  totpCode,
  totpTimeStep,
  totpUri,
} from './totp.js';

const KEY = 'k'.repeat(40);
const at = new Date('2026-01-15T12:00:10.000Z');
const step = Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
const shift = (steps: number) => new Date(at.getTime() + steps * TOTP_PERIOD_SECONDS * 1000);

// Fixed secrets, not newTotpSecret(): with random ones, two of the six-digit codes compared below
// (five steps of one secret, one of another) coincide about once in 100,000 runs and a check fails.
// For these, the codes of steps -2..+2 are all different, and the other secret's code is none of them.
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const OTHER_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

describe('totp', () => {
  const secret = SECRET;

  it('uses secrets whose codes around `at` are all different (so the checks below mean what they say)', () => {
    const codes = [-2, -1, 0, 1, 2].map((n) => totpCode(secret, shift(n)));
    expect(new Set([...codes, totpCode(OTHER_SECRET, at)]).size).toBe(6);
    expect(newTotpSecret()).toMatch(/^[A-Z2-7]{32}$/);
  });

  it('accepts the current code and its neighbours (±1 step), naming the step each belongs to', () => {
    expect(totpTimeStep(secret, totpCode(secret, at), at)).toBe(step);
    expect(totpTimeStep(secret, totpCode(secret, shift(-1)), at)).toBe(step - 1);
    expect(totpTimeStep(secret, totpCode(secret, shift(1)), at)).toBe(step + 1);
  });

  it('refuses codes two steps away, other secrets’ codes and anything not six digits', () => {
    const current = totpCode(secret, at);
    const foreign = totpCode(OTHER_SECRET, at);
    expect(totpTimeStep(secret, totpCode(secret, shift(-2)), at)).toBeNull();
    expect(totpTimeStep(secret, totpCode(secret, shift(2)), at)).toBeNull();
    expect(totpTimeStep(secret, foreign, at)).toBeNull();
    expect(totpTimeStep(secret, `${current}0`, at)).toBeNull();
    expect(totpTimeStep(secret, 'abcdef', at)).toBeNull();
  });

  it('builds the URI authenticator apps read', () => {
    const uri = new URL(totpUri(secret, 'ann@example.test', 'Members Site'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('Members Site');
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
  });
});

describe('secret encryption', () => {
  it('round-trips for the same user and key, never showing the secret', () => {
    const secret = newTotpSecret();
    const blob = encryptSecret(KEY, 'u1', secret);
    expect(blob).not.toContain(secret);
    expect(blob).not.toBe(encryptSecret(KEY, 'u1', secret)); // a fresh IV each time
    expect(decryptSecret(KEY, 'u1', blob)).toBe(secret);
  });

  it('does not decrypt for another user, another key, or a tampered blob', () => {
    const blob = encryptSecret(KEY, 'u1', newTotpSecret());
    expect(decryptSecret(KEY, 'u2', blob)).toBeNull();
    expect(decryptSecret('x'.repeat(40), 'u1', blob)).toBeNull();
    const parts = blob.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(decryptSecret(KEY, 'u1', parts.join('.'))).toBeNull();
    expect(decryptSecret(KEY, 'u1', 'garbage')).toBeNull();
  });
});

describe('recovery codes', () => {
  it('are ten distinct 80-bit codes whose hash ignores case and dashes', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    const c = codes[0] as string;
    expect(recoveryCodeHash(c.toLowerCase().replace(/-/g, ' '))).toBe(recoveryCodeHash(c));
    expect(recoveryCodeHash(c)).not.toContain(c.replace(/-/g, ''));
  });
});
