/** 'Pending User Approvals (count)': Email, Name, Registration Date, Location, Approve/Reject per row. */
import type { ReactNode } from 'react';
import type { PendingUser } from '../api/types';
import { formatDate } from '../format/dates';
import { Button } from './Button';
import { DataTable } from './DataTable';

export interface PendingUsersTableProps {
  users: PendingUser[];
  /** Every pending account (the list may be one page of them); defaults to `users.length`. */
  total?: number;
  /** The row being processed: its buttons are disabled. */
  busyId?: string | null;
  onApprove(user: PendingUser): void;
  onReject(user: PendingUser): void;
  /** How the e-mail links to the member's page (the web passes a router link); plain text without it. */
  renderMemberLink?: (member: { id: string; email: string }) => ReactNode;
}

function fullName(u: PendingUser): string {
  const name = [u.firstName, u.lastName].filter(Boolean).join(' ').trim();
  return name || 'N/A';
}

function location(u: PendingUser): string {
  const parts = [u.geoLocation?.country, u.geoLocation?.region].filter(Boolean);
  return parts.length ? parts.join(', ') : 'N/A';
}

export function PendingUsersTable({ users, total, busyId, onApprove, onReject, renderMemberLink }: PendingUsersTableProps) {
  return (
    <DataTable
      caption={`Pending User Approvals (${total ?? users.length})`}
      rows={users}
      rowKey={(u) => u.id}
      empty="No pending user approvals"
      columns={[
        { key: 'email', header: 'Email', render: (u) => (renderMemberLink ? renderMemberLink(u) : u.email) },
        { key: 'name', header: 'Name', render: (u) => <bdi>{fullName(u)}</bdi> },
        { key: 'date', header: 'Registration Date', render: (u) => formatDate(u.registrationDate ?? u.createdAt) },
        { key: 'location', header: 'Location', render: location },
        {
          key: 'actions',
          header: 'Actions',
          render: (u) => (
            <div className="row-actions">
              <Button size="sm" variant="success" disabled={busyId === u.id} onClick={() => onApprove(u)} aria-label={`Approve ${u.email}`}>
                Approve
              </Button>
              <Button size="sm" variant="danger" disabled={busyId === u.id} onClick={() => onReject(u)} aria-label={`Reject ${u.email}`}>
                Reject
              </Button>
            </div>
          ),
        },
      ]}
    />
  );
}
