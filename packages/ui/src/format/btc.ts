/** Bitcoin amounts as exact decimal strings (never floats) and the block-explorer helpers. */

const SATS_PER_BTC = 100_000_000n;

/** Normalises a BTC decimal string: no trailing zeros, at least one digit after the point is not forced. */
function normalise(btc: string): string {
  const t = btc.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return t;
  const [int = '0', frac = ''] = t.split('.');
  const i = int.replace(/^0+(?=\d)/, '');
  const f = frac.replace(/0+$/, '');
  return f ? `${i}.${f}` : i;
}

/** Satoshis (integer) as a BTC decimal string. @example satsToBtc(50000) // '0.0005' */
export function satsToBtc(sats: number | bigint): string {
  const v = BigInt(sats);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const int = abs / SATS_PER_BTC;
  const frac = (abs % SATS_PER_BTC).toString().padStart(8, '0');
  return normalise(`${neg ? '-' : ''}${int}.${frac}`);
}

/**
 * A BTC amount for display with its unit. Accepts a decimal string or number of BTC.
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
