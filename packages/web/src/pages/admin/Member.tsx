/** `/admin/users/:id`: a member's page for admins (history from their events, erasure); 'Access Denied' for everyone else. */
import { AdminAccessDenied, MemberHistoryView } from '@members/ui';
import { Link, Navigate, useParams } from 'react-router-dom';
import { useSession } from '../../app/session';
import { useSite } from '../../app/site';

export default function Member() {
  const { id = '' } = useParams();
  const { user, loggedIn, admin } = useSession();
  const site = useSite();
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (!admin) return <AdminAccessDenied email={user.email} role={user.role} />;
  return (
    <div className="container section">
      <p>
        <Link to="/admin">← Admin Dashboard</Link>
      </p>
      <h1>Member</h1>
      <MemberHistoryView key={id} memberId={id} explorerTemplate={site.bitcoin.explorerTxUrl} />
    </div>
  );
}
