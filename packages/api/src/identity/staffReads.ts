/**
 * Reads of personal data by the staff, audited (issue 42, ASVS 8.3.5): opening a member's page,
 * searching members, exporting a report each append a `StaffReadRecorded` event (who, what, when,
 * whose page; never the data read nor the words searched for) on the reader's `staffreads-{id}`
 * stream, so the record is in the hash-chained log and kept as the log is. The owner reads them
 * (GET /api/admin/staff/reads) from the `staff_reads` read model this file projects.
 */
import type { staffReadSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { type Page, pageOf } from '../shared/paging.js';

export const STAFF_READ_RECORDED = 'StaffReadRecorded';
export const staffReadsStream = (staffId: string) => `staffreads-${staffId}`;

type StaffRead = z.infer<typeof staffReadSchema>;
export type StaffReadAction = StaffRead['action'];

export interface StaffReadRecorded {
  staffId: string;
  action: StaffReadAction;
  subjectId: string | null;
  report: string | null;
  at: string;
}

/** Records that the caller read `action` (a member's page: `subjectId`; a report: its name). */
export async function recordStaffRead(
  ctx: AppContext,
  caller: Caller & { actorId: string },
  read: { action: StaffReadAction; subjectId?: string; report?: string },
): Promise<void> {
  const data: StaffReadRecorded = {
    staffId: caller.actorId,
    action: read.action,
    subjectId: read.subjectId ?? null,
    report: read.report ?? null,
    at: ctx.clock.now().toISOString(),
  };
  await ctx.store.append(staffReadsStream(caller.actorId), [{ type: STAFF_READ_RECORDED, data: { ...data } }], {
    expectedVersion: 'any',
    metadata: eventMetadata(ctx, caller),
  });
}

const STAFF_READS_SCHEMA = `
CREATE TABLE IF NOT EXISTS staff_reads (
  position BIGINT PRIMARY KEY,
  staff_id TEXT NOT NULL,
  action TEXT NOT NULL,
  subject_id TEXT,
  report TEXT,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS staff_reads_at ON staff_reads (at, position);
`;

export const staffReadsProjection: Projection = {
  name: 'staff_reads',
  version: 1,
  tables: ['staff_reads'],
  schema: STAFF_READS_SCHEMA,
  async apply(tx: Queryable, event: RecordedEvent) {
    if (event.type !== STAFF_READ_RECORDED) return;
    const d = event.data as unknown as StaffReadRecorded;
    await tx.run('INSERT INTO staff_reads (position, staff_id, action, subject_id, report, at) VALUES (?, ?, ?, ?, ?, ?)', [
      event.position,
      d.staffId,
      d.action,
      d.subjectId,
      d.report,
      d.at,
    ]);
  },
};

/** One page of the staff's reads, newest first, each with the reader's display name. */
export async function staffReads(q: Queryable, page: Page): Promise<{ reads: StaffRead[]; nextCursor: string | null }> {
  const [at, position] = page.after ?? ['9999', '0'];
  const rows = await q.all<{
    position: number | string;
    staff_id: string;
    first_name: string | null;
    action: StaffReadAction;
    subject_id: string | null;
    report: string | null;
    at: string;
  }>(
    `SELECT r.position, r.staff_id, u.first_name, r.action, r.subject_id, r.report, r.at
     FROM staff_reads r LEFT JOIN users u ON u.id = r.staff_id
     WHERE r.at < ? OR (r.at = ? AND r.position < ?)
     ORDER BY r.at DESC, r.position DESC LIMIT ?`,
    [at, at, Number(position) || 0, page.limit + 1],
  );
  const paged = pageOf(rows, page.limit, (r) => [r.at, String(r.position)]);
  return {
    reads: paged.rows.map((r) => ({
      at: r.at,
      staffId: r.staff_id,
      staffName: r.first_name ?? r.staff_id,
      action: r.action,
      subjectId: r.subject_id,
      report: r.report,
    })),
    nextCursor: paged.nextCursor,
  };
}
