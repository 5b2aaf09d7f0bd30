/**
 * The admin's member page body, shared by the web `/admin/users/:id` and (when wired) the desktop
 * console: who the member is now, their history from their events (registration, approval,
 * payments with transaction hashes, subscription, security changes, erasure), "Suspend member" /
 * "Reinstate member" (an approved member; the reason is recorded) and "Erase member" with a recorded reason. Over the API client from context (or the `client` prop).
 */

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { can, type StaffPermission, type StaffRole } from '../access/staffRoles';
import type { ApiClient } from '../api/client';
import { adminKeys, adminQueries } from '../api/queries';
import type { MemberHistoryEntry } from '../api/types';
import { formatDate } from '../format/dates';
import { useOptionalApiClient } from './ApiContext';
import { Button } from './Button';
import { Card } from './Card';
import { ConfirmDialog } from './ConfirmDialog';
import { type Column, DataTable } from './DataTable';
import { Alert, Spinner } from './Feedback';
import { TextAreaField } from './FormField';
import { StatusBadge } from './StatusBadge';

export const ERASE_REASON_MAX = 500;
export const SUSPEND_REASON_MAX = 500;

export interface MemberHistoryViewProps {
  memberId: string;
  client?: ApiClient;
  /** Block explorer '{txid}' template for transaction hashes. */
  explorerTemplate?: string;
  /** The signed-in staff member's role: suspension needs `members.review`, erasure `erasure`. Default: owner. */
  staffRole?: StaffRole | null;
}

const dateTime = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? 'N/A' : `${formatDate(d)} ${d.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })}`;
};

function txLink(hash: unknown, template?: string): ReactNode {
  if (typeof hash !== 'string' || !hash) return null;
  const short = hash.slice(0, 16);
  return template ? (
    <a href={template.replace('{txid}', hash)} target="_blank" rel="noopener noreferrer" title={hash}>
      {short}
    </a>
  ) : (
    <span title={hash}>{short}</span>
  );
}

export function MemberHistoryView({ memberId, client, explorerTemplate, staffRole }: MemberHistoryViewProps) {
  const may = (permission: StaffPermission) => can(staffRole ?? 'owner', permission);
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('MemberHistoryView needs a client prop or an <ApiClientProvider>');
  const qc = useQueryClient();
  const q = useQuery({ ...adminQueries(api).member(memberId), retry: false });
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [suspendReason, setSuspendReason] = useState('');
  const standing = useMutation({
    mutationFn: (action: 'suspend' | 'reinstate') =>
      action === 'suspend' ? api.suspendUser(memberId, suspendReason.trim()) : api.reinstateUser(memberId),
    onSuccess: async () => {
      setSuspendReason('');
      await qc.invalidateQueries({ queryKey: adminKeys.all });
    },
  });
  const erase = useMutation({
    mutationFn: () => api.eraseMember(memberId, reason.trim()),
    onSuccess: async () => {
      setReason('');
      await qc.invalidateQueries({ queryKey: adminKeys.all });
    },
  });

  if (q.isPending) return <Spinner label="Loading member..." />;
  if (q.isError) return <Alert>{(q.error as Error).message}</Alert>;
  const { member, history } = q.data;
  const erased = history.some((h) => h.category === 'erasure');
  const name = [member.firstName, member.lastName].filter(Boolean).join(' ') || 'N/A';

  const columns: Column<MemberHistoryEntry>[] = [
    { key: 'when', header: 'When', render: (h) => dateTime(h.at) },
    { key: 'what', header: 'What', render: (h) => h.summary },
    {
      key: 'details',
      header: 'Details',
      render: (h) =>
        txLink(h.details.txHash, explorerTemplate) ?? (h.details.paymentId ? `payment ${String(h.details.paymentId).slice(0, 8)}` : ''),
    },
    { key: 'by', header: 'By', render: (h) => <bdi>{h.actor}</bdi> },
  ];

  return (
    <div className="member-page" data-testid="member-page">
      <Card title={erased ? `erased member ${member.id.slice(0, 8)}` : (member.email ?? member.id)}>
        <dl className="member-facts">
          <dt>Name</dt>
          <dd dir="auto">{erased ? '—' : name}</dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge
              tone={
                erased
                  ? 'neutral'
                  : member.status === 'approved'
                    ? 'success'
                    : member.status === 'rejected' || member.status === 'suspended'
                      ? 'danger'
                      : 'warning'
              }
            >
              {erased ? 'Erased' : (member.status ?? 'unknown')}
            </StatusBadge>
          </dd>
          <dt>Membership</dt>
          <dd>{member.subscriptionStatus ?? member.membershipStatus ?? 'none'}</dd>
          <dt>Registered</dt>
          <dd>{formatDate(member.createdAt)}</dd>
          <dt>Location</dt>
          <dd>{member.geoLocation ? [member.geoLocation.country, member.geoLocation.region].filter(Boolean).join(', ') : 'N/A'}</dd>
        </dl>
      </Card>

      <Card className="admin-section">
        <DataTable
          caption={`History (${history.length})`}
          rows={history}
          rowKey={(h) => String(h.position)}
          columns={columns}
          empty="No events"
        />
      </Card>

      {!erased && may('members.review') && member.role !== 'admin' && (member.status === 'approved' || member.status === 'suspended') && (
        <Card title={member.status === 'suspended' ? 'Reinstate member' : 'Suspend member'} className="admin-section">
          {standing.isError && <Alert>{(standing.error as Error).message}</Alert>}
          {standing.isSuccess && (
            <Alert tone="success">
              {standing.variables === 'suspend' ? 'The member has been suspended.' : 'The member has been reinstated.'}
            </Alert>
          )}
          {member.status === 'suspended' ? (
            <>
              <p>The member cannot sign in or watch videos while suspended. Reinstating approves the account again.</p>
              <Button busy={standing.isPending} busyLabel="Reinstating..." onClick={() => standing.mutate('reinstate')}>
                Reinstate member
              </Button>
            </>
          ) : (
            <>
              <p>
                Suspending ends the member's sessions at once; they cannot sign in, watch videos or subscribe until reinstated. Their
                subscription and payments stay as they are.
              </p>
              <TextAreaField
                label="Reason for suspending (recorded)"
                name="suspendReason"
                value={suspendReason}
                maxLength={SUSPEND_REASON_MAX}
                onChange={(e) => setSuspendReason(e.target.value)}
                required
              />
              <Button
                variant="danger"
                disabled={!suspendReason.trim()}
                busy={standing.isPending}
                busyLabel="Suspending..."
                onClick={() => standing.mutate('suspend')}
              >
                Suspend member
              </Button>
            </>
          )}
        </Card>
      )}

      {!erased && may('erasure') && member.role !== 'admin' && (
        <Card title="Erase member" className="admin-section danger-zone">
          <p>
            Erasing destroys the member's personal data for good (name, e-mail, date of birth, location) and ends their sessions. Payment
            records stay for accounting, shown as an erased member. Use it on a verified request.
          </p>
          {erase.isError && <Alert>{(erase.error as Error).message}</Alert>}
          <TextAreaField
            label="Reason (recorded)"
            hint="It stays in the permanent record: name the request (e.g. 'verified request by e-mail of 3 May'), not the person."
            name="eraseReason"
            value={reason}
            maxLength={ERASE_REASON_MAX}
            onChange={(e) => setReason(e.target.value)}
            required
          />
          <Button
            variant="danger"
            disabled={!reason.trim()}
            busy={erase.isPending}
            busyLabel="Erasing..."
            onClick={() => setConfirming(true)}
          >
            Erase member
          </Button>
        </Card>
      )}
      {erase.isSuccess && <Alert tone="success">The member has been erased.</Alert>}

      <ConfirmDialog
        open={confirming}
        title="Erase member"
        message="Are you sure you want to erase this member? Their personal data cannot be recovered."
        confirmLabel="Erase"
        danger
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          erase.mutate();
        }}
      />
    </div>
  );
}
