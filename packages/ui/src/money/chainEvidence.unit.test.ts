import { describe, expect, it } from 'vitest';
import type { PendingPayment } from '../api/types';
import { chainEvidence, NO_NODE } from './chainEvidence';

const payment = (chain: Partial<PendingPayment['chain']>): PendingPayment => ({
  id: 'p1',
  userId: 'u1',
  userEmail: 'm@example.test',
  planType: 'annual',
  btcAmount: '0.005',
  amountSats: 500_000,
  submittedDate: '2026-11-29T00:00:00.000Z',
  chain: {
    status: 'unchecked',
    txid: null,
    receivedSats: 0,
    confirmations: 0,
    blockHeight: null,
    blockHash: null,
    checkedAt: null,
    ...chain,
  },
});
const node = { configured: true, confirmations: 2 };

describe('chain evidence on the admin screens', () => {
  it('without a node: "not checked", and a plain verify goes through (no blocker)', () => {
    const e = chainEvidence(payment({}), { configured: false, confirmations: 1 });
    expect(e).toMatchObject({ label: 'Not checked', note: NO_NODE, blocker: null, received: null, confirmations: null });
  });

  it('confirmed: received against asked, confirmations against those required, the block; no blocker', () => {
    const e = chainEvidence(
      payment({ status: 'confirmed', txid: 'ab'.repeat(32), receivedSats: 500_000, confirmations: 2, blockHeight: 812345 }),
      node,
    );
    expect(e).toMatchObject({
      label: 'Confirmed',
      tone: 'success',
      received: '0.005 of 0.005 BTC received',
      confirmations: '2 of 2 confirmations',
      block: 'Block 812,345',
      blocker: null,
      note: null,
    });
  });

  it("every other status with a node needs an override: the reason is the server's 409 meaning", () => {
    const under = chainEvidence(
      payment({ status: 'underpaid', txid: 'cd'.repeat(32), receivedSats: 499_000, confirmations: 1, blockHeight: 7 }),
      node,
    );
    expect(under.received).toBe('0.00499 of 0.005 BTC received');
    expect(under.blocker).toMatch(/pays less than the price/);
    for (const status of ['awaiting', 'not_found', 'wrong_address', 'unconfirmed', 'conflicted', 'unchecked'] as const)
      expect(chainEvidence(payment({ status }), node).blocker, status).toBeTruthy();
  });
});
