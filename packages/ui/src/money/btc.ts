/**
 * Bitcoin amounts, written once for the API, the web app and the desktop console. Inside the
 * system money is integer satoshis; decimal BTC strings exist only at the edges (config, API
 * answers, BIP21 URIs, the screen). Conversion is string and bigint arithmetic, never floats.
 */

export const SATS_PER_BTC = 100_000_000;

const BTC_DECIMAL = /^(\d{1,8})(?:\.(\d{1,8}))?$/;

/** Trims a BTC decimal string: no leading zeros before the units, no trailing zeros after the point. */
function normalise(btc: string): string {
  const t = btc.trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return t;
  const negative = t.startsWith('-');
  const [int = '0', frac = ''] = (negative ? t.slice(1) : t).split('.');
  const i = int.replace(/^0+(?=\d)/, '');
  const f = frac.replace(/0+$/, '');
  return `${negative ? '-' : ''}${f ? `${i}.${f}` : i}`;
}

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
 * Satoshis (integer) as the BTC decimal string the API answers, trailing zeros trimmed.
 * @example satsToBtc(50000) // '0.0005'
 */
export function satsToBtc(sats: number | bigint): string {
  const v = BigInt(sats);
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const whole = abs / BigInt(SATS_PER_BTC);
  const frac = (abs % BigInt(SATS_PER_BTC)).toString().padStart(8, '0');
  return normalise(`${negative ? '-' : ''}${whole}.${frac}`);
}

/**
 * A BTC amount for display with its unit (spec §2: "btcAmount followed by BTC"). Accepts the API's
 * decimal string or a number of BTC.
 * @example formatBtc('0.00050000') // '0.0005 BTC'
 */
export function formatBtc(amount: string | number | null | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '0 BTC';
  const text = typeof amount === 'number' ? amount.toFixed(8) : amount;
  return `${normalise(text)} BTC`;
}

/**
 * A transaction hash cut to its first `length` characters (16 by the spec), with an ellipsis when cut.
 * @example truncateHash('a'.repeat(64)) // 'aaaaaaaaaaaaaaaa...'
 */
export function truncateHash(hash: string, length = 16): string {
  return hash.length > length ? `${hash.slice(0, length)}...` : hash;
}

/** The public block-explorer page of a transaction from a `{txid}` template. */
export function explorerTxUrl(txid: string, template = 'https://mempool.space/tx/{txid}'): string {
  return template.replace('{txid}', encodeURIComponent(txid));
}
