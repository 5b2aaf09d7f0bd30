/**
 * HTTP byte ranges (RFC 9110 §14): one `bytes=` range, a suffix range, or an open-ended one.
 * Malformed headers and multi-range requests are ignored (a full 200, as the RFC allows);
 * well-formed but unsatisfiable ranges give 416.
 */

export type RangeRequest = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined | null, size: number): RangeRequest {
  if (!header) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return { kind: 'full' };
  const [, first, last] = m as unknown as [string, string, string];
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix: the last N bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (last !== '' && end < start) return { kind: 'full' }; // invalid spec: ignore the header
  if (!Number.isSafeInteger(start) || start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

/**
 * If-Range: the range applies only when the validator still names this representation
 * (a strong ETag, or exactly the Last-Modified date).
 */
export function ifRangeMatches(ifRange: string | undefined | null, etag: string, lastModified: Date): boolean {
  if (!ifRange) return true;
  const v = ifRange.trim();
  if (v.startsWith('W/')) return false;
  if (v.startsWith('"')) return v === etag;
  const date = Date.parse(v);
  return Number.isFinite(date) && Math.floor(date / 1000) === Math.floor(lastModified.getTime() / 1000);
}
