/**
 * Bitcoin amounts are integer satoshis everywhere inside the system; decimal BTC strings exist only
 * at the edges (config, API answers, BIP21 URIs). Conversion is string arithmetic, never floats.
 */
export const SATS_PER_BTC = 100_000_000;

const BTC_DECIMAL = /^(\d{1,8})(?:\.(\d{1,8}))?$/;

/**
 * Parses a decimal BTC string into satoshis, or `undefined` when it is not a plain decimal with at
 * most 8 decimals (no exponent, no sign, no spaces).
 * @example parseBtc('0.0005') // 50000
 */
export function parseBtc(value: string): number | undefined {
  const m = BTC_DECIMAL.exec(value);
  if (!m) return undefined;
  const whole = Number(m[1]);
  const frac = Number((m[2] ?? '').padEnd(8, '0'));
  return whole * SATS_PER_BTC + frac;
}

/**
 * Formats satoshis as a BTC string with trailing zeros trimmed, the way the UI shows prices.
 * @example formatBtc(50000) // '0.0005'
 */
export function formatBtc(sats: number | bigint): string {
  const n = BigInt(sats);
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const whole = abs / BigInt(SATS_PER_BTC);
  const frac = (abs % BigInt(SATS_PER_BTC)).toString().padStart(8, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}
