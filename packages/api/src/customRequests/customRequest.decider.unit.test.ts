import { describe, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import {
  type CustomRequestCommand,
  type CustomRequestEvent,
  customRequestDecider,
  DESCRIPTION_REQUIRED,
  DESCRIPTION_TOO_LONG,
  quoteTooHigh,
  REQUEST_NOT_FOUND,
} from './customRequest.decider.js';

const { given } = deciderSpec(customRequestDecider);
const R = 'req-1';
const MEMBER = 'member-1';
const ADMIN = 'admin-1';
const T = '2026-05-01T10:00:00.000Z';

const submitted: CustomRequestEvent = {
  type: 'CustomRequestSubmitted',
  data: { requestId: R, userId: MEMBER, description: 'A beach video', requestedAt: T },
};
const quoted: CustomRequestEvent = {
  type: 'CustomRequestQuoted',
  data: { requestId: R, userId: MEMBER, amountSats: 200_000, quotedBy: ADMIN, quotedAt: T },
};
const opened: CustomRequestEvent = {
  type: 'CustomRequestPaymentOpened',
  data: { requestId: R, userId: MEMBER, paymentId: 'pay-1', amountSats: 200_000, openedAt: T },
};
const paid: CustomRequestEvent = {
  type: 'CustomRequestPaid',
  data: { requestId: R, userId: MEMBER, paymentId: 'pay-1', amountSats: 200_000, verifiedBy: ADMIN, paidAt: T },
};
const delivered: CustomRequestEvent = {
  type: 'CustomRequestDelivered',
  data: { requestId: R, userId: MEMBER, videoId: 'video-1', deliveredBy: ADMIN, deliveredAt: T },
};

const submit = (description: string): CustomRequestCommand => ({
  type: 'SubmitCustomRequest',
  requestId: R,
  userId: MEMBER,
  description,
  now: T,
});
const quote = (amountSats: number): CustomRequestCommand => ({
  type: 'QuoteCustomRequest',
  requestId: R,
  amountSats,
  maxAmountSats: 100_000_000,
  quotedBy: ADMIN,
  now: T,
});
const decline = (reason: string, paymentOpen = false): CustomRequestCommand => ({
  type: 'DeclineCustomRequest',
  requestId: R,
  reason,
  declinedBy: ADMIN,
  paymentOpen,
  now: T,
});
const open = (userId = MEMBER): CustomRequestCommand => ({
  type: 'OpenCustomRequestPayment',
  requestId: R,
  userId,
  paymentId: 'pay-1',
  now: T,
});
const markPaid = (paymentId = 'pay-1', amountSats = 200_000): CustomRequestCommand => ({
  type: 'MarkCustomRequestPaid',
  requestId: R,
  paymentId,
  amountSats,
  verifiedBy: ADMIN,
  now: T,
});
const deliver = (videoId = 'video-1'): CustomRequestCommand => ({
  type: 'DeliverCustomRequest',
  requestId: R,
  videoId,
  deliveredBy: ADMIN,
  now: T,
});

describe('custom request decider: asking', () => {
  it('records the description trimmed; refuses an empty or too long one', () => {
    thenEvents(given([]).when(submit('  A beach video \n')), [submitted]);
    thenError(given([]).when(submit('  ')), 'validation.invalid_input', DESCRIPTION_REQUIRED);
    thenError(given([]).when(submit('x'.repeat(2001))), 'validation.invalid_input', DESCRIPTION_TOO_LONG);
  });

  it('knows no request before it was asked', () => {
    thenError(given([]).when(quote(1000)), 'custom_request.not_found', REQUEST_NOT_FOUND);
  });
});

describe('custom request decider: quote and decline', () => {
  it('quotes a positive amount, and may quote again until a payment is opened', () => {
    thenEvents(given([submitted]).when(quote(200_000)), [quoted]);
    thenError(given([submitted]).when(quote(0)), 'validation.invalid_input', 'btcAmount: must be a BTC amount above zero such as "0.002"');
    thenEvents(given([submitted, quoted]).when(quote(200_000)), [quoted]);
    // Up to the site's ceiling (1 BTC here), not a satoshi more: 21,000,001 BTC is a typo or an attack.
    thenEvents(given([submitted]).when(quote(100_000_000)), [
      { type: 'CustomRequestQuoted', data: { requestId: R, userId: MEMBER, amountSats: 100_000_000, quotedBy: ADMIN, quotedAt: T } },
    ]);
    for (const sats of [100_000_001, 2_100_000_100_000_000])
      thenError(given([submitted]).when(quote(sats)), 'validation.invalid_input', quoteTooHigh(100_000_000));
    thenError(
      given([submitted, quoted, opened]).when(quote(300_000)),
      'custom_request.state_conflict',
      'The member has already opened a payment for this quote; it cannot be changed',
    );
  });

  it('declines with a reason, not while a payment is open nor once paid', () => {
    thenEvents(given([submitted]).when(decline(' Not something we film ')), [
      {
        type: 'CustomRequestDeclined',
        data: { requestId: R, userId: MEMBER, reason: 'Not something we film', declinedBy: ADMIN, declinedAt: T },
      },
    ]);
    thenError(given([submitted]).when(decline(' ')), 'validation.invalid_input', 'reason: Please give a reason for declining the request');
    thenError(
      given([submitted, quoted, opened]).when(decline('no', true)),
      'custom_request.state_conflict',
      'A payment is open for this request: verify or reject it first',
    );
    thenError(
      given([submitted, quoted, opened, paid]).when(decline('no')),
      'custom_request.state_conflict',
      'This request is already paid',
    );
  });
});

describe('custom request decider: pay and deliver', () => {
  it('opens a payment of the quoted amount for the requester only, once quoted', () => {
    thenEvents(given([submitted, quoted]).when(open()), [opened]);
    thenError(given([submitted]).when(open()), 'custom_request.state_conflict', 'This request has not been quoted yet');
    thenError(given([submitted, quoted]).when(open('someone-else')), 'custom_request.not_found', REQUEST_NOT_FOUND);
  });

  it('is paid by its open payment at the quoted amount, once (a repeat changes nothing)', () => {
    thenEvents(given([submitted, quoted, opened]).when(markPaid()), [paid]);
    thenEvents(given([submitted, quoted, opened, paid]).when(markPaid()), []);
    thenError(
      given([submitted, quoted, opened]).when(markPaid('pay-2')),
      'custom_request.state_conflict',
      'This payment is not the open payment of the request',
    );
    thenError(
      given([submitted, quoted, opened]).when(markPaid('pay-1', 1)),
      'custom_request.state_conflict',
      'The payment does not match the quoted amount',
    );
  });

  it('delivers a paid request only, to one video', () => {
    thenError(given([submitted, quoted, opened]).when(deliver()), 'custom_request.state_conflict', 'Only a paid request can be delivered');
    thenEvents(given([submitted, quoted, opened, paid]).when(deliver()), [delivered]);
    thenEvents(given([submitted, quoted, opened, paid, delivered]).when(deliver()), []);
    thenError(
      given([submitted, quoted, opened, paid, delivered]).when(deliver('video-2')),
      'custom_request.state_conflict',
      'This request was already delivered',
    );
  });
});
