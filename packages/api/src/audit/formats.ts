/**
 * Report rows as text chunks — CSV (RFC 4180), NDJSON, or one JSON document written piece by piece —
 * so the CLI and the HTTP routes stream the same bytes without holding a report in memory.
 */

export type ReportFormat = 'csv' | 'json' | 'ndjson';

export function parseFormat(value: string | undefined, fallback: ReportFormat = 'json'): ReportFormat | undefined {
  if (value === undefined || value === '') return fallback;
  return value === 'csv' || value === 'json' || value === 'ndjson' ? value : undefined;
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  // Leading =,+,-,@ would run as formulas in a spreadsheet; a quote-prefix keeps them text.
  const safe = /^[=+\-@]/.test(text) && Number.isNaN(Number(text)) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(values: unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Text chunks of `rows` in `format`; JSON wraps them as `{"success":true,"data":[…]}` (the API envelope). */
export async function* formatRows<T extends object>(
  rows: AsyncIterable<T>,
  format: ReportFormat,
  columns: (keyof T)[],
): AsyncGenerator<string> {
  if (format === 'csv') {
    yield csvLine(columns as string[]);
    for await (const row of rows) yield csvLine(columns.map((c) => row[c]));
    return;
  }
  if (format === 'ndjson') {
    for await (const row of rows) yield `${JSON.stringify(row)}\n`;
    return;
  }
  yield '{"success":true,"data":[';
  let first = true;
  for await (const row of rows) {
    yield `${first ? '\n' : ',\n'}${JSON.stringify(row)}`;
    first = false;
  }
  yield '\n]}\n';
}

export const CONTENT_TYPES: Record<ReportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** `YYYY-MM-DD`, optionally with `THH:MM[:SS[.fff]]` and `Z` or `±HH:MM`: ISO 8601 as the API documents it. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))?)?$/;

/**
 * Parses a `--from/--to` or `?from=&to=` value; a bare date `2026-01-31` as `to` means the end of
 * that day. Strict: a date that is not on the calendar (`2026-02-31`, `2026-13-01`, hour 24) or not in
 * ISO 8601 (`March 3`) is 'invalid', never rolled over into another day as `new Date` would.
 */
export function parseDateBound(value: string | undefined, end: boolean): Date | undefined | 'invalid' {
  if (value === undefined || value === '') return undefined;
  const m = ISO_DATE.exec(value);
  if (!m) return 'invalid';
  const [y, mo, d, h, mi, sec, , zh, zm] = m.slice(1).map((p) => (p === undefined ? 0 : Number(p)));
  const day = new Date(Date.UTC(y as number, (mo as number) - 1, d as number));
  const onCalendar = day.getUTCFullYear() === y && day.getUTCMonth() === (mo as number) - 1 && day.getUTCDate() === d;
  if (!onCalendar || (h as number) > 23 || (mi as number) > 59 || (sec as number) > 59 || (zh as number) > 23 || (zm as number) > 59)
    return 'invalid';
  const dayOnly = m[4] === undefined;
  const parsed = new Date(dayOnly ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value);
  return Number.isNaN(parsed.getTime()) ? 'invalid' : parsed;
}

/** Joins small chunks into pieces of about `size` characters (fewer writes to a socket). */
export async function* batchChunks(chunks: AsyncIterable<string>, size = 64 * 1024): AsyncGenerator<string> {
  let buf = '';
  for await (const c of chunks) {
    buf += c;
    if (buf.length >= size) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}
