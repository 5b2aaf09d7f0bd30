/**
 * The creator's team (issue 42), the owner's screen: the staff with their role and last activity,
 * the invitations still open, an invitation form (e-mail and role; the link is mailed, valid 72
 * hours), a role change or removal per member (removal ends every session of theirs at once), and
 * the record of the staff's reads of personal data (who opened which member's page, searched or
 * exported a report, and when). Shown only to a role with the `staff` permission.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { STAFF_ROLE_LABELS, STAFF_ROLES, type StaffRole } from '../access/staffRoles';
import type { ApiClient } from '../api/client';
import { adminKeys, adminQueries } from '../api/queries';
import type { StaffMember, StaffRead } from '../api/types';
import { errorText } from '../format/errorText';
import { Button } from './Button';
import { Card } from './Card';
import { ConfirmDialog } from './ConfirmDialog';
import { DataTable } from './DataTable';
import { Alert, Spinner } from './Feedback';
import { FormField, SelectField } from './FormField';

const ROLE_OPTIONS = STAFF_ROLES.map((r) => ({ value: r, label: STAFF_ROLE_LABELS[r] }));
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : 'Never');
const READ_WORDS: Record<StaffRead['action'], string> = {
  'member.page': "Opened a member's page",
  'members.search': 'Searched members',
  'report.export': 'Exported a report',
};

export function StaffAdmin({ api, selfId }: { api: ApiClient; selfId: string }) {
  const qc = useQueryClient();
  const queries = adminQueries(api);
  const staff = useQuery(queries.staff());
  const reads = useQuery(queries.staffReads());
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<StaffRole>('support');
  const [removing, setRemoving] = useState<StaffMember | null>(null);
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: adminKeys.staff });

  const invite = useMutation({
    mutationFn: () => api.inviteStaff(email.trim(), role),
    onSuccess: (i) => {
      setNotice({ tone: 'success', text: `Invitation sent to ${i.email} as ${STAFF_ROLE_LABELS[i.role]}.` });
      setEmail('');
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to send the invitation') }),
    onSettled: refresh,
  });
  const change = useMutation({
    mutationFn: ({ id, to }: { id: string; to: StaffRole }) => api.changeStaffRole(id, to),
    onSuccess: (m) => setNotice({ tone: 'success', text: `${m.displayName} is now ${STAFF_ROLE_LABELS[m.role]}.` }),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to change the role') }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (m: StaffMember) => api.removeStaff(m.id),
    onSuccess: (_r, m) => setNotice({ tone: 'success', text: `${m.displayName} was removed; their sessions have ended.` }),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to remove the staff member') }),
    onSettled: refresh,
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) return setNotice({ tone: 'error', text: 'Please enter a valid email address' });
    invite.mutate();
  }

  return (
    <Card title="Team" className="admin-section">
      {notice && (
        <Alert tone={notice.tone} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {staff.error ? <Alert>{(staff.error as Error).message}</Alert> : null}
      {staff.isPending ? (
        <Spinner label="Loading the team..." />
      ) : (
        <>
          <DataTable
            caption="Staff"
            rows={staff.data?.staff ?? []}
            rowKey={(m) => m.id}
            empty="No staff yet."
            columns={[
              { key: 'name', header: 'Name', render: (m) => <bdi>{m.displayName}</bdi> },
              { key: 'email', header: 'Email', render: (m) => m.email },
              {
                key: 'role',
                header: 'Role',
                render: (m) =>
                  m.id === selfId ? (
                    STAFF_ROLE_LABELS[m.role]
                  ) : (
                    <select
                      className="input"
                      aria-label={`Role of ${m.displayName}`}
                      value={m.role}
                      disabled={change.isPending}
                      onChange={(e) => change.mutate({ id: m.id, to: e.target.value as StaffRole })}
                    >
                      {ROLE_OPTIONS.map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.label}
                        </option>
                      ))}
                    </select>
                  ),
              },
              { key: 'active', header: 'Last active', render: (m) => when(m.lastActiveAt) },
              {
                key: 'actions',
                header: 'Actions',
                render: (m) =>
                  m.id === selfId ? null : (
                    <Button variant="danger" size="sm" onClick={() => setRemoving(m)} aria-label={`Remove ${m.displayName}`}>
                      Remove
                    </Button>
                  ),
              },
            ]}
          />
          <DataTable
            caption="Invitations waiting"
            rows={staff.data?.invitations ?? []}
            rowKey={(i) => i.id}
            empty="No invitation is waiting."
            columns={[
              { key: 'email', header: 'Email', render: (i) => i.email },
              { key: 'role', header: 'Role', render: (i) => STAFF_ROLE_LABELS[i.role] },
              { key: 'expires', header: 'Link valid until', render: (i) => when(i.expiresAt) },
            ]}
          />
        </>
      )}
      <form onSubmit={submit} noValidate className="staff-invite">
        <FormField label="Invite by email" name="staffEmail" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        <SelectField
          label="Role"
          name="staffRole"
          value={role}
          options={ROLE_OPTIONS}
          onChange={(e) => setRole(e.target.value as StaffRole)}
        />
        <Button type="submit" busy={invite.isPending} busyLabel="Sending...">
          Send Invitation
        </Button>
      </form>
      {reads.error ? <Alert>{(reads.error as Error).message}</Alert> : null}
      <DataTable
        caption="Reads of personal data"
        rows={reads.data?.reads ?? []}
        rowKey={(r) => `${r.at}-${r.staffId}-${r.action}-${r.subjectId ?? r.report ?? ''}`}
        empty="No reads recorded yet."
        columns={[
          { key: 'at', header: 'When', render: (r) => when(r.at) },
          { key: 'who', header: 'Who', render: (r) => <bdi>{r.staffName}</bdi> },
          { key: 'what', header: 'What', render: (r) => READ_WORDS[r.action] },
          { key: 'whose', header: 'Member or report', render: (r) => r.subjectId ?? r.report ?? '' },
        ]}
      />
      <ConfirmDialog
        open={removing !== null}
        title="Remove staff member"
        message={`Remove ${removing?.displayName ?? ''} from the team? Every session of theirs ends at once and they can no longer sign in.`}
        confirmLabel="Remove"
        danger
        onCancel={() => setRemoving(null)}
        onConfirm={() => {
          const m = removing;
          setRemoving(null);
          if (m) remove.mutate(m);
        }}
      />
    </Card>
  );
}
