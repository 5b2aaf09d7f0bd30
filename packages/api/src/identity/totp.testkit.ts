/** Test-only: a TOTP code the server refuses. */
import { TOTP_PERIOD_SECONDS, TOTP_WINDOW, totpCode } from './totp.js';

/**
 * A six-digit code valid for none of the steps the server accepts at `at` (±TOTP_WINDOW). Only
 * "not the current code" is not enough: a fixed guess such as '000000' is the previous or the next
 * step's code about twice in a million tries, and then the "wrong" code is accepted.
 * @example wrongTotpCode(secret, server.clock.now()) // '000000', or '111111' when that one is valid
 */
export function wrongTotpCode(secret: string, at: Date): string {
  const valid = new Set<string>();
  for (let d = -TOTP_WINDOW; d <= TOTP_WINDOW; d++) valid.add(totpCode(secret, new Date(at.getTime() + d * TOTP_PERIOD_SECONDS * 1000)));
  return ['000000', '111111', '222222', '333333'].find((c) => !valid.has(c)) as string;
}
