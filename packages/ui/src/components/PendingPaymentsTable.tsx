/**
 * 'Pending Payment Verifications (count)': User Email, Plan badge, Amount in BTC, Submitted Date,
 * Transaction Hash (16 characters linked to a block explorer, or 'Not provided'), what the chain
 * shows (status, received against asked, confirmations, block, or why it cannot be verified: see
 * money/chainEvidence.ts), 'Verify & Activate' and, when `onReject` is given, 'Reject'.
 */
import type { PendingPayment, PendingPaymentsAnswer } from '../api/types';
import { formatDate } from '../format/dates';
import { explorerTxUrl, formatBtc, truncateHash } from '../money/btc';
import { chainEvidence } from '../money/chainEvidence';
import { Button } from './Button';
import { DataTable } from './DataTable';
import { StatusBadge } from './StatusBadge';

export interface PendingPaymentsTableProps {
  payments: PendingPayment[];
  /** Every pending payment (the list may be one page of them); defaults to `payments.length`. */
  total?: number;
  busyId?: string | null;
  /** '{txid}' template of the block explorer's transaction page. */
  explorerTemplate?: string;
  /** Whether a Bitcoin node checks payments, and the confirmations it asks (the first page's answer). */
  chainNode?: PendingPaymentsAnswer['chainNode'];
  /** The caption; the flagged list reuses the table with its own. */
  caption?: string;
  /** Shows 'Verify & Activate' per row. */
  onVerify?(payment: PendingPayment): void;
  /** Shows a 'Reject' button per row (the caller asks for the reason). */
  onReject?(payment: PendingPayment): void;
}

export function PendingPaymentsTable({
  payments,
  total,
  busyId,
  explorerTemplate,
  chainNode,
  caption,
  onVerify,
  onReject,
}: PendingPaymentsTableProps) {
  // Decisions: none on the list of verified payments that left the chain (already decided).
  const actions = {
    key: 'actions',
    header: 'Actions',
    render: (p: PendingPayment) => (
      <div className="row-actions">
        {onVerify && (
          <Button
            size="sm"
            variant="success"
            disabled={busyId === p.id}
            onClick={() => onVerify(p)}
            aria-label={`Verify & Activate payment of ${p.userEmail}`}
          >
            Verify &amp; Activate
          </Button>
        )}
        {onReject && (
          <Button
            size="sm"
            variant="danger"
            disabled={busyId === p.id}
            onClick={() => onReject(p)}
            aria-label={`Reject payment of ${p.userEmail}`}
          >
            Reject
          </Button>
        )}
      </div>
    ),
  };
  return (
    <DataTable
      caption={caption ?? `Pending Payment Verifications (${total ?? payments.length})`}
      rows={payments}
      rowKey={(p) => p.id}
      empty="No pending payment verifications"
      columns={[
        { key: 'email', header: 'User Email', render: (p) => p.userEmail },
        {
          key: 'plan',
          header: 'Plan',
          render: (p) => (
            <StatusBadge tone={p.planType === 'annual' ? 'brand' : p.planType === 'custom' ? 'warning' : 'info'}>
              {p.planType === 'annual' ? 'Annual' : p.planType === 'custom' ? 'Custom request' : 'Monthly'}
            </StatusBadge>
          ),
        },
        { key: 'amount', header: 'Amount', render: (p) => formatBtc(p.btcAmount) },
        { key: 'date', header: 'Submitted Date', render: (p) => formatDate(p.submittedDate) },
        {
          key: 'hash',
          header: 'Transaction Hash',
          render: (p) => {
            const txid = p.transactionHash ?? p.chain.txid;
            return txid ? (
              <a className="mono" href={explorerTxUrl(txid, explorerTemplate)} target="_blank" rel="noopener noreferrer" title={txid}>
                {truncateHash(txid, 16)}
              </a>
            ) : (
              <span className="muted">Not provided</span>
            );
          },
        },
        {
          key: 'chain',
          header: 'On the chain',
          render: (p) => {
            const e = chainEvidence(p, chainNode);
            return (
              <div className="chain-evidence" data-chain-status={e.status}>
                <StatusBadge tone={e.tone}>{e.label}</StatusBadge>
                {e.note && <span className="muted">{e.note}</span>}
                {e.received && <span>{e.received}</span>}
                {e.confirmations && <span>{e.confirmations}</span>}
                {e.block && <span>{e.block}</span>}
                {e.blocker && <span className="chain-blocker">{e.blocker}</span>}
              </div>
            );
          },
        },
        ...(onVerify === undefined && onReject === undefined ? [] : [actions]),
      ]}
    />
  );
}
