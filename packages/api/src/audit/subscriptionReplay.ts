/**
 * Time travel for disputes: the state of every member's subscription as it was at a position or an
 * instant, replayed from the events alone (ledger.ts), as report rows.
 */

import { satsToBtc } from '@members/ui/money';
import type { EventStore } from '../eventstore/types.js';
import { type Ledger, type ReplayPoint, replayLedger } from './ledger.js';

export interface SubscriptionAtRow {
  userId: string;
  memberEmail: string | null;
  subscriptionId: string;
  status: string;
  planType: string;
  periodStart: string;
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  paymentId: string;
  amountSats: number;
  btcAmount: string;
  /** Position and time of the last event that changed this subscription. */
  lastPosition: number;
  lastChangedAt: string;
}

export const SUBSCRIPTION_AT_COLUMNS: (keyof SubscriptionAtRow)[] = [
  'userId',
  'memberEmail',
  'subscriptionId',
  'status',
  'planType',
  'periodStart',
  'periodEnd',
  'cancelAtPeriodEnd',
  'paymentId',
  'amountSats',
  'btcAmount',
  'lastPosition',
  'lastChangedAt',
];

export async function* subscriptionRows(ledger: Ledger): AsyncGenerator<SubscriptionAtRow> {
  for (const s of ledger.subscriptions.values()) {
    yield {
      userId: s.userId,
      memberEmail: ledger.emails.get(s.userId) ?? null,
      subscriptionId: s.subscriptionId,
      status: s.status,
      planType: s.planType,
      periodStart: s.periodStart,
      periodEnd: s.periodEnd,
      cancelAtPeriodEnd: s.cancelAtPeriodEnd,
      paymentId: s.paymentId,
      amountSats: s.amountSats,
      btcAmount: satsToBtc(s.amountSats),
      lastPosition: s.position,
      lastChangedAt: s.at,
    };
  }
}

/** @example const { ledger } = await subscriptionsAt(store, { time: new Date('2026-03-01T00:00:00Z') }); */
export async function subscriptionsAt(
  store: EventStore,
  point: ReplayPoint,
): Promise<{ ledger: Ledger; rows: AsyncGenerator<SubscriptionAtRow> }> {
  const ledger = await replayLedger(store.streamAll({ batchSize: 1000 }), point);
  return { ledger, rows: subscriptionRows(ledger) };
}
