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

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
// Hours 00–23, minutes and seconds 00–59, zone offsets up to ±23:59: `T24:00` is no time (JavaScript
// would read it as the next day's midnight).
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** `2026-02-31` and `2026-13-01` are no day: the calendar date must survive a round trip through UTC. */
const realDay = (y: string, m: string, d: string) => {
  const t = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return t.getUTCFullYear() === Number(y) && t.getUTCMonth() === Number(m) - 1 && t.getUTCDate() === Number(d);
};

/**
 * The one meaning of a date in every audit command and audit route (docs/audit.md#dates): a bare day
 * `2026-11-26` is that whole day in UTC, so as a start (`--from`, `?from=`) it is 00:00:00.000 and as
 * an end (`--to`, `?to=`) 23:59:59.999; an ISO 8601 timestamp with a zone (`2026-11-26T15:00:00Z`,
 * `…+01:00`) is that instant. Anything else, an impossible day (`2026-02-31`) included, is `invalid`.
 */
export function parseDateBound(value: string | undefined, end: boolean): Date | undefined | 'invalid' {
  if (value === undefined || value === '') return undefined;
  const text = value.trim();
  const day = DAY.exec(text);
  const m = day ?? TIMESTAMP.exec(text);
  if (!m || !realDay(m[1] as string, m[2] as string, m[3] as string)) return 'invalid';
  const d = new Date(day ? `${text}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : text);
  return Number.isNaN(d.getTime()) ? 'invalid' : d;
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
