/**
 * Keyset paging for lists that grow with history (the admin queues): `?limit=` (1–200, default 50)
 * and `?after=` (the `nextCursor` of the previous page). The cursor is the sort key of the last row
 * sent, as base64url JSON, so a page costs one index range read however deep it is, and rows
 * inserted or removed between two pages never shift what the next page holds.
 */
import { z } from 'zod';

export const PAGE_MAX = 200;
export const PAGE_DEFAULT = 50;

/** A sort key: (timestamp, id). */
export type Keyset = [string, string];

function decodeCursor(value: string): Keyset | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string' && p.length <= 200))
      return parsed as Keyset;
  } catch {
    /* answered as invalid below */
  }
  return undefined;
}

export const encodeCursor = (key: Keyset): string => Buffer.from(JSON.stringify(key)).toString('base64url');

export const pageQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(PAGE_MAX, `must be at most ${PAGE_MAX}`)
    .default(PAGE_DEFAULT),
  after: z
    .string()
    .max(600, 'is not a valid cursor')
    .transform((v, c) => {
      const key = decodeCursor(v);
      if (!key) c.addIssue({ code: 'custom', message: 'is not a valid cursor' });
      return key as Keyset;
    })
    .optional(),
});

export interface Page {
  limit: number;
  after?: Keyset;
}

/** Rows were read with `limit + 1`: drops the extra row and gives the cursor of the next page, if any. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => Keyset): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: encodeCursor(keyOf(page[page.length - 1] as T)) };
}
