/**
 * What the admin sees of a payment's chain check (issue 38, docs/billing.md "What the chain shows"):
 * a label and tone per status, the amount received against the amount asked, the confirmations
 * against those required, the block, and — when verifying needs an override — why, in the words
 * of the error the server would answer (`payment.chain_*` in the catalogue), so the screen and the
 * 409 never disagree.
 */
import { ERROR_CODES } from '../api/schemas/errorCodes';
import type { PendingPayment, PendingPaymentsAnswer } from '../api/types';
import type { BadgeTone as Tone } from '../format/subscriptionBadge';
import { formatBtc, satsToBtc } from './btc';

export type ChainStatus = PendingPayment['chain']['status'];

const LABEL: Record<ChainStatus, { label: string; tone: Tone }> = {
  unchecked: { label: 'Not checked', tone: 'neutral' },
  awaiting: { label: 'Awaiting payment', tone: 'info' },
  not_found: { label: 'Not found', tone: 'danger' },
  wrong_address: { label: 'Wrong address', tone: 'danger' },
  underpaid: { label: 'Underpaid', tone: 'warning' },
  unconfirmed: { label: 'Unconfirmed', tone: 'warning' },
  confirmed: { label: 'Confirmed', tone: 'success' },
  conflicted: { label: 'Conflicted', tone: 'danger' },
};

/** The copy every screen shows when the site follows no Bitcoin node. */
export const NO_NODE = 'not checked: no Bitcoin node configured';

export interface ChainEvidence {
  status: ChainStatus;
  label: string;
  tone: Tone;
  /** "0.0049 of 0.005 BTC received", or null when nothing was seen. */
  received: string | null;
  /** "1 of 1 confirmations", or null when no transaction was seen. */
  confirmations: string | null;
  /** "Block 812,345", or null while unmined. */
  block: string | null;
  /** The transaction the check is about (the member's hash, or the one the chain showed). */
  txid: string | null;
  /** Why the server would refuse a plain verify (409), or null when it would accept it. */
  blocker: string | null;
  /** A sentence for a payment nothing checked. */
  note: string | null;
}

export function chainEvidence(p: PendingPayment, node: PendingPaymentsAnswer['chainNode'] | undefined): ChainEvidence {
  const { status } = p.chain;
  const configured = node?.configured ?? false;
  const seen = p.chain.txid !== null;
  const { label, tone } = LABEL[status];
  const needs = node?.confirmations ?? 1;
  return {
    status,
    label,
    tone,
    received: seen ? `${satsToBtc(p.chain.receivedSats)} of ${formatBtc(p.btcAmount)} received` : null,
    confirmations: seen ? `${p.chain.confirmations} of ${needs} confirmation${needs === 1 ? '' : 's'}` : null,
    block: p.chain.blockHeight !== null ? `Block ${p.chain.blockHeight.toLocaleString('en-US')}` : null,
    txid: p.chain.txid ?? p.transactionHash ?? null,
    // Without a node the server verifies as it always did; with one, only `confirmed` goes through.
    blocker: configured && status !== 'confirmed' ? ERROR_CODES[`payment.chain_${status}`].meaning : null,
    note: configured ? null : NO_NODE,
  };
}
