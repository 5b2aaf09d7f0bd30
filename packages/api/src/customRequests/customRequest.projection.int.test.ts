/**
 * The custom requests read model (customRequest.projection.ts), given the events as the decider
 * decides them, then its rows (live and rebuilt from the log); and the catalog's `private_to`, kept
 * from the delivery.
 */
import { describe, it } from 'vitest';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { customRequestDecider, customRequestStream } from './customRequest.decider.js';
import { customRequestsProjection } from './customRequest.projection.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const ADMIN = 'ad000000-0000-4000-8000-000000000003';
const T1 = '2026-03-02T09:00:00.000Z';
const T2 = '2026-03-02T09:10:00.000Z';
const T3 = '2026-03-02T09:20:00.000Z';
const T4 = '2026-03-02T09:30:00.000Z';
const T5 = '2026-03-02T09:40:00.000Z';

const { given } = projectionSpec(customRequestsProjection);
const ROWS =
  'SELECT id, user_id, description, status, amount_sats, payment_id, video_id, decline_reason, requested_at, updated_at FROM custom_requests ORDER BY id';

function request(requestId: string) {
  const s = stream(customRequestStream(requestId));
  return {
    submit: (description: string, now = T1) =>
      s.decide(customRequestDecider, { type: 'SubmitCustomRequest', requestId, userId: ALICE, description, now }),
    quote: (amountSats: number, now = T2) =>
      s.decide(customRequestDecider, {
        type: 'QuoteCustomRequest',
        requestId,
        amountSats,
        maxAmountSats: 100_000_000,
        quotedBy: ADMIN,
        now,
      }),
    decline: (reason: string, now = T2) =>
      s.decide(customRequestDecider, { type: 'DeclineCustomRequest', requestId, reason, declinedBy: ADMIN, paymentOpen: false, now }),
    open: (paymentId: string, now = T3) =>
      s.decide(customRequestDecider, { type: 'OpenCustomRequestPayment', requestId, userId: ALICE, paymentId, now }),
    paid: (paymentId: string, amountSats: number, now = T4) =>
      s.decide(customRequestDecider, { type: 'MarkCustomRequestPaid', requestId, paymentId, amountSats, verifiedBy: ADMIN, now }),
    deliver: (videoId: string, now = T5) =>
      s.decide(customRequestDecider, { type: 'DeliverCustomRequest', requestId, videoId, deliveredBy: ADMIN, now }),
  };
}

describe('custom requests projection', () => {
  it('follows a request from asked to delivered, and a declined one with its reason', async () => {
    const r1 = request('r1');
    const r2 = request('r2');
    await given(
      r1.submit('A beach video'),
      r1.quote(200_000),
      r1.open('pay-1'),
      r1.paid('pay-1', 200_000),
      r1.deliver('video-1'),
      r2.submit('Something odd'),
      r2.decline('Not something we film'),
    ).thenRows(ROWS, [
      {
        id: 'r1',
        user_id: ALICE,
        description: 'A beach video',
        status: 'delivered',
        amount_sats: 200_000,
        payment_id: 'pay-1',
        video_id: 'video-1',
        decline_reason: null,
        requested_at: T1,
        updated_at: T5,
      },
      {
        id: 'r2',
        user_id: ALICE,
        description: 'Something odd',
        status: 'declined',
        amount_sats: null,
        payment_id: null,
        video_id: null,
        decline_reason: 'Not something we film',
        requested_at: T1,
        updated_at: T2,
      },
    ]);
  });

  it('a quoted request with an open payment stays quoted until the payment is verified', async () => {
    const r = request('r1');
    await given(r.submit('A video'), r.quote(150_000), r.open('pay-9')).thenRows(
      'SELECT status, amount_sats, payment_id, updated_at FROM custom_requests',
      [{ status: 'quoted', amount_sats: 150_000, payment_id: 'pay-9', updated_at: T3 }],
    );
  });
});
