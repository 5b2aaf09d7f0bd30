/** `/admin/leaks`: Leak tracing for admins (send a leaked copy, see who it names; docs/leak-tracing.md); 'Access Denied' for everyone else. */
import { AdminAccessDenied, LeakTracing } from '@members/ui';
import { Link, Navigate } from 'react-router-dom';
import { useSession } from '../../app/session';

export default function Leaks() {
  const { user, loggedIn, admin } = useSession();
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (!admin) return <AdminAccessDenied email={user.email} role={user.role} />;
  return (
    <div className="container section">
      <p>
        <Link to="/admin">← Admin Dashboard</Link>
      </p>
      <h1>Leak tracing</h1>
      <LeakTracing />
    </div>
  );
}
