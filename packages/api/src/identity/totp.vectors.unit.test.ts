/**
 * The second factor against the published vectors, not against itself: RFC 6238 Appendix B (TOTP,
 * SHA-1) and RFC 4226 Appendix D (HOTP, which is TOTP at time counter × 30 s). Every expected code
 * below is copied from the RFCs; none is computed by `totpCode`.
 *
 * The RFCs print 8-digit TOTP codes; ours have 6 digits (TOTP_DIGITS). RFC 4226 §5.3 truncates to
 * `Snum mod 10^Digit`, so a 6-digit code is the last 6 digits of the 8-digit one. SHA-256/SHA-512
 * vectors are left out: the implementation only speaks SHA-1 (what authenticator apps support).
 */
import { describe, expect, it } from 'vitest';
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS, TOTP_WINDOW, totpCode, totpTimeStep } from './totp.js';

/** The RFCs' secret, the ASCII bytes "12345678901234567890", in base32 (Python: base64.b32encode(b"12345678901234567890")). */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

/** RFC 6238 Appendix B, the SHA-1 rows: Unix time in seconds → 8-digit TOTP. */
const RFC6238_SHA1: [seconds: number, code8: string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

/** RFC 4226 Appendix D: counter → 6-digit HOTP. */
const RFC4226: string[] = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];

const atSeconds = (s: number) => new Date(s * 1000);

describe('TOTP against RFC 6238 Appendix B (SHA-1)', () => {
  it('uses the parameters the vectors assume: 30 s step, 6 of the 8 digits, ±1 step', () => {
    expect(TOTP_PERIOD_SECONDS).toBe(30);
    expect(TOTP_DIGITS).toBe(6);
    expect(TOTP_WINDOW).toBe(1);
  });

  it.each(RFC6238_SHA1)('at T = %i s the code is the last six digits of %s', (seconds, code8) => {
    expect(totpCode(RFC_SECRET, atSeconds(seconds))).toBe(code8.slice(-6));
  });
});

describe('HOTP against RFC 4226 Appendix D (TOTP at counter × 30 s)', () => {
  it.each(RFC4226.map((code, counter) => [counter, code] as const))('counter %i gives %s', (counter, code) => {
    // Any instant inside the step gives the same code: its start, and one second before its end.
    expect(totpCode(RFC_SECRET, atSeconds(counter * 30))).toBe(code);
    expect(totpCode(RFC_SECRET, atSeconds(counter * 30 + 29))).toBe(code);
  });
});

describe('the verification window on a fixed clock, with the RFC codes', () => {
  // 20 s into step 5: steps 4, 5 and 6 are inside the ±1 window, 3 and 7 outside.
  const at = atSeconds(5 * 30 + 20);

  it('accepts the codes of steps 4, 5 and 6 and names the step each belongs to', () => {
    expect(totpTimeStep(RFC_SECRET, RFC4226[4] as string, at)).toBe(4);
    expect(totpTimeStep(RFC_SECRET, RFC4226[5] as string, at)).toBe(5);
    expect(totpTimeStep(RFC_SECRET, RFC4226[6] as string, at)).toBe(6);
  });

  it('refuses the codes of steps 3 and 7 and codes of other steps', () => {
    for (const counter of [0, 1, 2, 3, 7, 8, 9]) expect(totpTimeStep(RFC_SECRET, RFC4226[counter] as string, at)).toBeNull();
  });

  it('at T = 1111111111 s (step 37037037) accepts the code of 1111111109 s as the step before and that of 59 s not at all', () => {
    const now = atSeconds(1111111111);
    expect(totpTimeStep(RFC_SECRET, '050471', now)).toBe(37037037);
    expect(totpTimeStep(RFC_SECRET, '081804', now)).toBe(37037036);
    expect(totpTimeStep(RFC_SECRET, '287082', now)).toBeNull();
    // The 8-digit form of the current code is not a code here.
    expect(totpTimeStep(RFC_SECRET, '14050471', now)).toBeNull();
  });
});
