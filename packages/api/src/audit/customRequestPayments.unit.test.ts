/** The auditor's check of custom video request payments (reconcile.ts check 2), over a hand-fed ledger. */
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../eventstore/types.js';
import { applyToLedger, emptyLedger } from './ledger.js';
import { checkLedger, replayedTotals } from './reconcile.js';

let position = 0;
const event = (type: string, data: Record<string, unknown>) =>
  ({ type, data, position: ++position, recordedAt: '2026-06-01T10:00:00.000Z', streamId: 's', metadata: {} }) as unknown as RecordedEvent;

const payment = (status: 'submitted' | 'verified', amountSats = 200_000, customRequestId = 'r1') => [
  event('PaymentRequested', { paymentId: 'p1', userId: 'u1', planType: 'custom', amountSats, address: 'bc1q', customRequestId }),
  event('PaymentSubmitted', { paymentId: 'p1', userId: 'u1', planType: 'custom', amountSats, customRequestId }),
  ...(status === 'verified'
    ? [event('PaymentVerified', { paymentId: 'p1', userId: 'u1', planType: 'custom', amountSats, customRequestId })]
    : []),
];
const paid = event('CustomRequestPaid', { requestId: 'r1', userId: 'u1', paymentId: 'p1', amountSats: 200_000 });

function ledgerOf(events: RecordedEvent[]) {
  const l = emptyLedger();
  for (const e of events) applyToLedger(l, e);
  return l;
}

describe('audit: custom request payments', () => {
  it('counts a verified request payment as revenue and finds nothing wrong with its paid request', () => {
    const l = ledgerOf([...payment('verified'), paid]);
    expect(checkLedger(l)).toEqual([]);
    expect(replayedTotals(l)).toMatchObject({ revenueSats: 200_000, verifiedPayments: 1 });
  });

  it('reports a request marked paid without a verified payment, or by a payment of another amount or request', () => {
    const checks = (events: RecordedEvent[]) => checkLedger(ledgerOf(events)).map((d) => [d.check, d.message]);
    expect(checks([...payment('submitted'), paid])).toEqual([
      ['custom-request-backed-by-verified-payment', 'is paid but payment p1 is submitted'],
    ]);
    expect(checks([...payment('verified', 100_000), paid])).toEqual([
      ['custom-request-backed-by-verified-payment', 'payment p1 is 100000 sats, the request 200000'],
    ]);
    expect(checks([...payment('verified', 200_000, 'r2'), paid])).toEqual([
      ['custom-request-backed-by-verified-payment', 'payment p1 pays for request r2'],
    ]);
  });
});
