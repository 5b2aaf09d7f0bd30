/**
 * The custom requests read model: one `custom_requests` row per request with its status, quote,
 * open payment and delivered video, kept by the `CustomRequest*` events. An erasure (MemberErased)
 * blanks the member's descriptions and decline reasons; amounts, payments and statuses stay.
 */
import type { Queryable } from '../db/types.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { ERASURE_EVENT } from '../shredding/index.js';
import { CUSTOM_REQUEST_EVENT_TYPES, type CustomRequestEvent } from './customRequest.decider.js';

export const CUSTOM_REQUESTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS custom_requests (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  description TEXT NOT NULL,
  status TEXT NOT NULL,
  amount_sats BIGINT,
  payment_id TEXT,
  video_id TEXT,
  decline_reason TEXT,
  requested_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS custom_requests_user ON custom_requests (user_id, requested_at);
CREATE INDEX IF NOT EXISTS custom_requests_status ON custom_requests (status, requested_at);
`;

export interface CustomRequestRow {
  id: string;
  user_id: string;
  description: string;
  status: 'requested' | 'quoted' | 'declined' | 'paid' | 'delivered';
  amount_sats: number | string | null;
  payment_id: string | null;
  video_id: string | null;
  decline_reason: string | null;
  requested_at: string;
  updated_at: string;
}

async function applyEvent(tx: Queryable, event: CustomRequestEvent): Promise<void> {
  switch (event.type) {
    case 'CustomRequestSubmitted': {
      const d = event.data;
      await tx.run(
        `INSERT INTO custom_requests (id, user_id, description, status, requested_at, updated_at) VALUES (?, ?, ?, 'requested', ?, ?)`,
        [d.requestId, d.userId, d.description ?? '', d.requestedAt, d.requestedAt],
      );
      return;
    }
    case 'CustomRequestQuoted':
      await tx.run(`UPDATE custom_requests SET status = 'quoted', amount_sats = ?, updated_at = ? WHERE id = ?`, [
        event.data.amountSats,
        event.data.quotedAt,
        event.data.requestId,
      ]);
      return;
    case 'CustomRequestDeclined':
      await tx.run(`UPDATE custom_requests SET status = 'declined', decline_reason = ?, updated_at = ? WHERE id = ?`, [
        event.data.reason ?? '',
        event.data.declinedAt,
        event.data.requestId,
      ]);
      return;
    case 'CustomRequestPaymentOpened':
      await tx.run('UPDATE custom_requests SET payment_id = ?, updated_at = ? WHERE id = ?', [
        event.data.paymentId,
        event.data.openedAt,
        event.data.requestId,
      ]);
      return;
    case 'CustomRequestPaid':
      await tx.run(`UPDATE custom_requests SET status = 'paid', updated_at = ? WHERE id = ?`, [event.data.paidAt, event.data.requestId]);
      return;
    case 'CustomRequestDelivered':
      await tx.run(`UPDATE custom_requests SET status = 'delivered', video_id = ?, updated_at = ? WHERE id = ?`, [
        event.data.videoId,
        event.data.deliveredAt,
        event.data.requestId,
      ]);
      return;
  }
}

const TYPES = new Set<string>(CUSTOM_REQUEST_EVENT_TYPES);

export const customRequestsProjection: Projection = {
  name: 'customRequests',
  version: 1,
  tables: ['custom_requests'],
  schema: CUSTOM_REQUESTS_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    if (event.type === ERASURE_EVENT) {
      const userId = (event.data as { userId?: string }).userId;
      if (userId)
        await tx.run(
          `UPDATE custom_requests SET description = '', decline_reason = CASE WHEN decline_reason IS NULL THEN NULL ELSE '' END WHERE user_id = ?`,
          [userId],
        );
      return;
    }
    if (TYPES.has(event.type)) await applyEvent(tx, event as unknown as CustomRequestEvent);
  },
};
