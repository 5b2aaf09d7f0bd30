/** `/pending-approval`: what an unapproved member sees; moves on by itself once approved. */
import { StatusBadge } from '@members/ui';
import { formatDate, postLoginPath, REJECTED_MEMBER_PATH } from '@members/ui/format';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate } from 'react-router-dom';
import { queries } from '../app/queries';
import { storeUserChange, useSession } from '../app/session';
import { useSite } from '../app/site';
import { SignOutOrSupport } from '../layout/SignOutOrSupport';

export default function PendingApproval() {
  const { user, loggedIn, approved } = useSession();
  const site = useSite();
  const qc = useQueryClient();
  const status = useQuery({
    ...queries.identity.approvalStatus(),
    enabled: loggedIn && !approved,
    refetchInterval: 30_000,
  });

  // Once, when the check first sees the approval: the stored user then counts as approved, and each
  // store cancels and repeats the profile check (storeUserChange).
  const seenApproved = Boolean(status.data?.approved) && Boolean(user) && !approved;
  useEffect(() => {
    if (seenApproved) void storeUserChange(qc, (u) => ({ ...u, approved: true, status: u.status === 'pending' ? 'approved' : u.status }));
  }, [seenApproved, qc]);

  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (approved) return <Navigate to={postLoginPath(user, site.adminEmail)} replace />;
  if (user.status === 'rejected') return <Navigate to={REJECTED_MEMBER_PATH} replace />;

  return (
    <div className="container narrow section">
      <div className="card">
        <h1>Account Pending Approval</h1>
        <p>Thank you for registering! Your account is being reviewed by our team.</p>
        <dl className="details">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge tone="warning">Pending Approval</StatusBadge>
          </dd>
          <dt>Registration Date</dt>
          <dd>{formatDate(user.createdAt ?? user.registrationDate)}</dd>
        </dl>
        <ul>
          <li>Account review usually takes 24-48 hours.</li>
          <li>You will receive an email as soon as your account is approved.</li>
          <li>After approval you can buy a subscription to watch premium videos.</li>
        </ul>
        <SignOutOrSupport />
      </div>
    </div>
  );
}
