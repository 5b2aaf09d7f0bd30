/**
 * What the chain says about one payment, decided from what the watcher found (pure): the
 * transaction that pays it (the one the member submitted, or in xpub mode any paying the request's
 * own address), how much reached the request's output script, and how deep it is. Scripts are
 * compared, never address strings (a regtest node spells the same script `bcrt1…` or `rb1…`).
 */
import type { CHAIN_STATUS_VALUES } from '@members/ui/api/schemas';
import type { DecodedTx } from './rawBlock.js';

/** The statuses are the API contract's (`chain.status` of a pending payment). */
export type ChainStatus = (typeof CHAIN_STATUS_VALUES)[number];

/** Verified payments are watched until this deep; one that leaves the chain before is flagged. */
export const WATCH_DEPTH = 6;

export type ChainObservation = {
  status: ChainStatus;
  txid: string | null;
  /** The first output of `txid` paying the request's script. */
  outputIndex: number | null;
  /** Satoshis reaching the request's script (all paying transactions in xpub mode). */
  receivedSats: number;
  confirmations: number;
  blockHeight: number | null;
  blockHash: string | null;
  /** The paying transaction signals BIP125 replaceability and is unconfirmed. */
  rbf: boolean;
};

/** A transaction where the watcher last saw it: in a block of the best chain, or in the mempool. */
export interface SeenTx {
  tx: DecodedTx;
  where: { blockHash: string; height: number } | 'mempool';
  /** Another transaction (in a block, or the mempool's replacement) spends one of its inputs. */
  conflictedBy?: string;
}

export interface ChainPolicy {
  /** Confirmations for `confirmed` (site config `bitcoin.confirmations`, default 1). */
  confirmations: number;
  /** An underpayment within this share of the price counts as paid (default 0). */
  underpaymentTolerancePercent: number;
}

export interface WatchedPayment {
  amountSats: number;
  /** The output script (hex) the payment must reach: the request's address, or the site's fixed address. */
  script: string | undefined;
  /** The hash the member submitted, if any. */
  txHash: string | undefined;
  previous: ChainObservation | undefined;
}

export interface ChainView {
  tipHeight: number;
  /** The submitted transaction, or 'absent' when it is neither in the best chain (as far as followed) nor the mempool. */
  submitted?: SeenTx | 'absent';
  /** xpub mode: transactions paying the request's script. */
  paying: SeenTx[];
}

const NOTHING = { txid: null, outputIndex: null, receivedSats: 0, confirmations: 0, blockHeight: null, blockHash: null, rbf: false };
const SEEN: ReadonlySet<ChainStatus> = new Set(['underpaid', 'unconfirmed', 'confirmed']);

const depth = (seen: SeenTx, tip: number) => (seen.where === 'mempool' ? 0 : tip - seen.where.height + 1);
const paidBy = (seen: SeenTx, script: string | undefined) =>
  seen.tx.outputs.reduce((sum, o) => (o.script === script ? sum + o.sats : sum), 0);

/**
 * The payment's status as the chain shows it now.
 * @example assessPayment({ amountSats: 50_000, script, txHash, previous: undefined }, { tipHeight: 110, submitted, paying: [] }, { confirmations: 1, underpaymentTolerancePercent: 0 })
 */
export function assessPayment(payment: WatchedPayment, view: ChainView, policy: ChainPolicy): ChainObservation {
  if (payment.script === undefined) return { status: 'unchecked', ...NOTHING };
  const candidates: SeenTx[] = payment.txHash
    ? view.submitted && view.submitted !== 'absent'
      ? [view.submitted]
      : []
    : view.paying.filter((s) => paidBy(s, payment.script) > 0);
  const live = candidates.filter((c) => !c.conflictedBy);
  if (live.length === 0) {
    const prev = payment.previous;
    const wasThere = prev?.txid && SEEN.has(prev.status) && (!payment.txHash || prev.txid === payment.txHash);
    if (wasThere || candidates.length > 0) return { ...NOTHING, status: 'conflicted', txid: prev?.txid ?? candidates[0]?.tx.txid ?? null };
    return { status: payment.txHash ? 'not_found' : 'awaiting', ...NOTHING, txid: payment.txHash ?? null };
  }
  // The largest payer names the evidence; the shallowest sets the confirmations of the whole.
  const primary = [...live].sort((a, b) => paidBy(b, payment.script) - paidBy(a, payment.script))[0] as SeenTx;
  const receivedSats = live.reduce((sum, s) => sum + paidBy(s, payment.script), 0);
  const confirmations = Math.min(...live.map((s) => depth(s, view.tipHeight)));
  const outputIndex = primary.tx.outputs.findIndex((o) => o.script === payment.script);
  const rbf = live.some((s) => s.where === 'mempool' && s.tx.signalsRbf);
  const where =
    primary.where === 'mempool'
      ? { blockHeight: null, blockHash: null }
      : { blockHeight: primary.where.height, blockHash: primary.where.blockHash };
  const found = { txid: primary.tx.txid, outputIndex: outputIndex < 0 ? null : outputIndex, receivedSats, confirmations, rbf, ...where };
  if (receivedSats === 0) return { ...found, status: 'wrong_address' };
  const minimum = Math.ceil((payment.amountSats * (100 - policy.underpaymentTolerancePercent)) / 100);
  if (receivedSats < minimum) return { ...found, status: 'underpaid' };
  // A replaceable transaction is never final before it is mined, whatever the policy says.
  const final = confirmations >= policy.confirmations && !(rbf && confirmations === 0);
  return { ...found, status: final ? 'confirmed' : 'unconfirmed' };
}

/** Whether a new observation is worth an event: confirmations count only until the watch depth. */
export function sameObservation(a: ChainObservation | undefined, b: ChainObservation): boolean {
  return (
    a !== undefined &&
    a.status === b.status &&
    a.txid === b.txid &&
    a.receivedSats === b.receivedSats &&
    a.blockHash === b.blockHash &&
    a.rbf === b.rbf &&
    Math.min(a.confirmations, WATCH_DEPTH) === Math.min(b.confirmations, WATCH_DEPTH)
  );
}
