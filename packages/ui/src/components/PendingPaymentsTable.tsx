/**
 * 'Pending Payment Verifications (count)': User Email, Plan badge, Amount in BTC, Submitted Date,
 * Transaction Hash (16 characters linked to a block explorer, or 'Not provided'), 'Verify & Activate'
 * and, when `onReject` is given, 'Reject'.
 */
import type { PendingPayment } from '../api/types';
import { formatDate } from '../format/dates';
import { explorerTxUrl, formatBtc, truncateHash } from '../money/btc';
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
  onVerify(payment: PendingPayment): void;
  /** Shows a 'Reject' button per row (the caller asks for the reason). */
  onReject?(payment: PendingPayment): void;
}

export function PendingPaymentsTable({ payments, total, busyId, explorerTemplate, onVerify, onReject }: PendingPaymentsTableProps) {
  return (
    <DataTable
      caption={`Pending Payment Verifications (${total ?? payments.length})`}
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
          render: (p) =>
            p.transactionHash ? (
              <a
                className="mono"
                href={explorerTxUrl(p.transactionHash, explorerTemplate)}
                target="_blank"
                rel="noopener noreferrer"
                title={p.transactionHash}
              >
                {truncateHash(p.transactionHash, 16)}
              </a>
            ) : (
              <span className="muted">Not provided</span>
            ),
        },
        {
          key: 'actions',
          header: 'Actions',
          render: (p) => (
            <div className="row-actions">
              <Button
                size="sm"
                variant="success"
                disabled={busyId === p.id}
                onClick={() => onVerify(p)}
                aria-label={`Verify & Activate payment of ${p.userEmail}`}
              >
                Verify &amp; Activate
              </Button>
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
        },
      ]}
    />
  );
}
