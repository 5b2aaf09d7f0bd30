import { describe, expect, it } from 'vitest';
import { assessPayment, type ChainObservation, type SeenTx, sameObservation } from './chainStatus.js';

const SCRIPT = `0014${'11'.repeat(20)}`;
const OTHER = `0014${'22'.repeat(20)}`;
const policy = { confirmations: 1, underpaymentTolerancePercent: 0 };

function seen(opts: { sats: number; script?: string; height?: number; rbf?: boolean; txid?: string; conflictedBy?: string }): SeenTx {
  return {
    tx: {
      txid: opts.txid ?? 'aa'.repeat(32),
      outputs: [
        { script: OTHER, sats: 1234 },
        { script: opts.script ?? SCRIPT, sats: opts.sats },
      ],
      signalsRbf: Boolean(opts.rbf),
      spends: [],
    },
    where: opts.height === undefined ? 'mempool' : { height: opts.height, blockHash: 'bb'.repeat(32) },
    ...(opts.conflictedBy ? { conflictedBy: opts.conflictedBy } : {}),
  };
}

const submitted = (s: SeenTx | 'absent', previous?: ChainObservation, pol = policy, amountSats = 50_000) =>
  assessPayment({ amountSats, script: SCRIPT, txHash: 'aa'.repeat(32), previous }, { tipHeight: 100, submitted: s, paying: [] }, pol);

describe('assessPayment', () => {
  it('a submitted transaction: not_found, wrong_address, underpaid, unconfirmed, confirmed (by script, not address)', () => {
    expect(submitted('absent').status).toBe('not_found');
    expect(submitted(seen({ sats: 50_000, script: OTHER }))).toMatchObject({ status: 'wrong_address', receivedSats: 0 });
    expect(submitted(seen({ sats: 49_999, height: 100 }))).toMatchObject({ status: 'underpaid', receivedSats: 49_999 });
    expect(submitted(seen({ sats: 50_000 }))).toMatchObject({ status: 'unconfirmed', confirmations: 0, blockHash: null });
    expect(submitted(seen({ sats: 60_000, height: 99 }))).toMatchObject({
      status: 'confirmed',
      confirmations: 2,
      blockHeight: 99,
      outputIndex: 1,
      receivedSats: 60_000,
    });
  });

  it('underpayment within the tolerance counts as paid', () => {
    const tolerant = { confirmations: 1, underpaymentTolerancePercent: 1 };
    expect(submitted(seen({ sats: 49_500, height: 100 }), undefined, tolerant).status).toBe('confirmed');
    expect(submitted(seen({ sats: 49_499, height: 100 }), undefined, tolerant).status).toBe('underpaid');
  });

  it('an RBF transaction is never final unconfirmed, even when 0 confirmations would do', () => {
    const zero = { confirmations: 0, underpaymentTolerancePercent: 0 };
    expect(submitted(seen({ sats: 50_000 }), undefined, zero).status).toBe('confirmed');
    expect(submitted(seen({ sats: 50_000, rbf: true }), undefined, zero)).toMatchObject({ status: 'unconfirmed', rbf: true });
    expect(submitted(seen({ sats: 50_000, rbf: true, height: 100 }), undefined, zero)).toMatchObject({ status: 'confirmed', rbf: false });
  });

  it('replaced, double-spent or gone after being seen: conflicted', () => {
    expect(submitted(seen({ sats: 50_000, conflictedBy: 'cc'.repeat(32) })).status).toBe('conflicted');
    const before = submitted(seen({ sats: 50_000, height: 100 }));
    expect(submitted('absent', before)).toMatchObject({ status: 'conflicted', txid: 'aa'.repeat(32) });
  });

  it('xpub mode, nothing submitted: awaiting, then every transaction paying the address counts', () => {
    const watch = { amountSats: 50_000, script: SCRIPT, txHash: undefined, previous: undefined };
    expect(assessPayment(watch, { tipHeight: 100, paying: [] }, policy).status).toBe('awaiting');
    const two = [seen({ sats: 30_000, height: 100, txid: '01'.repeat(32) }), seen({ sats: 20_000, txid: '02'.repeat(32) })];
    expect(assessPayment(watch, { tipHeight: 100, paying: two }, policy)).toMatchObject({
      status: 'unconfirmed',
      receivedSats: 50_000,
      txid: '01'.repeat(32),
      confirmations: 0,
    });
  });

  it('no script to compare with (no address at all): unchecked', () => {
    expect(
      assessPayment(
        { amountSats: 1, script: undefined, txHash: 'aa'.repeat(32), previous: undefined },
        { tipHeight: 1, paying: [] },
        policy,
      ).status,
    ).toBe('unchecked');
  });

  it('sameObservation: confirmations beyond the watch depth are no news', () => {
    const at = (confirmations: number): ChainObservation => ({ ...submitted(seen({ sats: 50_000, height: 100 })), confirmations });
    expect(sameObservation(at(6), at(9))).toBe(true);
    expect(sameObservation(at(2), at(3))).toBe(false);
    expect(sameObservation(undefined, at(1))).toBe(false);
  });
});
