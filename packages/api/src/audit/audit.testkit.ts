/**
 * Test support for the audit suites: a generated billing history appended straight to a store
 * (members registered and approved, payments requested → submitted → verified or rejected, and the
 * subscriptions they activate), shaped like the identity and billing events, plus raw SQL helpers
 * that tamper with stored rows the way an attacker with database access would.
 */
import { periodEnd } from '../billing/plans.js';
import type { Queryable } from '../db/types.js';
import type { EventStore } from '../eventstore/types.js';

export interface GeneratedHistory {
  members: number;
  events: number;
  verifiedSats: number;
  /** Position of one PaymentVerified event (a good target for tampering). */
  aVerifiedPaymentPosition: number;
}

const hex64 = (n: number) => n.toString(16).padStart(64, '0');

/**
 * Appends `members` × 6 events (every 5th payment rejected instead: 5 events and no subscription).
 * @example await generateBillingHistory(store, { members: 500, start: new Date('2026-01-01') })
 */
export async function generateBillingHistory(
  store: EventStore,
  opts: { members: number; start?: Date; adminId?: string },
): Promise<GeneratedHistory> {
  const t0 = (opts.start ?? new Date('2026-01-01T00:00:00.000Z')).getTime();
  const admin = opts.adminId ?? 'admin-1';
  let verifiedSats = 0;
  let aVerifiedPaymentPosition = 0;
  for (let i = 0; i < opts.members; i++) {
    const at = (min: number) => new Date(t0 + i * 3_600_000 + min * 60_000).toISOString();
    const userId = `m${String(i).padStart(5, '0')}`;
    const email = `member${i}@example.test`;
    const meta = (min: number, actorId: string | null = userId) => ({ actorId, at: at(min) });
    await store.append(
      `user-${userId}`,
      [
        {
          type: 'UserRegistered',
          data: {
            userId,
            email,
            firstName: 'Gen',
            lastName: `Member ${i}`,
            dateOfBirth: '1990-01-01',
            passwordHash: 'x',
            role: 'member',
            registeredAt: at(0),
          },
        },
        { type: 'UserApproved', data: { userId, approvedBy: admin, approvedAt: at(1) } },
      ],
      { expectedVersion: 'no_stream', metadata: meta(0, null) },
    );
    const annual = i % 2 === 0;
    const planType = annual ? 'annual' : 'monthly';
    const amountSats = annual ? 500_000 : 50_000;
    const paymentId = `p${String(i).padStart(5, '0')}`;
    const address = `bc1qgenerated${i}`;
    const stream = `payment-${paymentId}`;
    const pay = { paymentId, userId, planType, amountSats };
    await store.append(
      stream,
      [
        {
          type: 'PaymentRequested',
          data: { ...pay, address, bip21Uri: `bitcoin:${address}?amount=x`, requestedAt: at(2), expiresAt: at(2000) },
        },
      ],
      { expectedVersion: 'no_stream', metadata: meta(2) },
    );
    await store.append(
      stream,
      [{ type: 'PaymentSubmitted', data: { ...pay, userEmail: email, address, txHash: hex64(i + 1), submittedAt: at(3) } }],
      {
        expectedVersion: 1,
        metadata: meta(3),
      },
    );
    if (i % 5 === 4) {
      await store.append(
        stream,
        [{ type: 'PaymentRejected', data: { ...pay, reason: 'not received', rejectedBy: admin, rejectedAt: at(4) } }],
        {
          expectedVersion: 2,
          metadata: meta(4, admin),
        },
      );
      continue;
    }
    const v = await store.append(
      stream,
      [{ type: 'PaymentVerified', data: { ...pay, txHash: hex64(i + 1), verifiedBy: admin, verifiedAt: at(4) } }],
      { expectedVersion: 2, metadata: meta(4, admin) },
    );
    verifiedSats += amountSats;
    aVerifiedPaymentPosition ||= v.lastPosition;
    const periodStart = at(4);
    await store.append(
      `subscription-${userId}`,
      [
        {
          type: 'SubscriptionActivated',
          data: {
            subscriptionId: `s${i}`,
            userId,
            planType,
            periodStart,
            periodEnd: periodEnd(periodStart, planType),
            paymentId,
            amountSats,
            activatedAt: periodStart,
          },
        },
      ],
      { expectedVersion: 'no_stream', metadata: meta(4, admin) },
    );
  }
  return { members: opts.members, events: await store.headPosition(), verifiedSats, aVerifiedPaymentPosition };
}

interface RawRow {
  position: number;
  data: string;
  [k: string]: unknown;
}

/** Direct access to the `events` table, bypassing the store, as a tamperer would. */
export function rawEvents(db: Queryable) {
  return {
    get: (position: number) => db.get<RawRow>('SELECT * FROM events WHERE position = ?', [position]),
    setData: (position: number, data: string) => db.run('UPDATE events SET data = ? WHERE position = ?', [data, position]),
    remove: (position: number) => db.run('DELETE FROM events WHERE position = ?', [position]),
    async restore(row: RawRow) {
      const cols = Object.keys(row);
      await db.run(`DELETE FROM events WHERE position = ?`, [row.position]);
      await db.run(
        `INSERT INTO events (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
        cols.map((c) => row[c]),
      );
    },
    /** Swaps the places of two rows in the log (their positions), keeping everything else. */
    async swap(a: number, b: number) {
      await db.run('UPDATE events SET position = ? WHERE position = ?', [-1, a]);
      await db.run('UPDATE events SET position = ? WHERE position = ?', [a, b]);
      await db.run('UPDATE events SET position = ? WHERE position = ?', [b, -1]);
    },
  };
}
