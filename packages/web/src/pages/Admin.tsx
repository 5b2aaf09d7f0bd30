/**
 * `/admin`: the shared AdminDashboard, the members' chat inbox and the custom requests queue for admins, a link to Leak tracing;
 * 'Access Denied' for everyone else. A library row's "Preview" opens the video's player page, where an admin plays any video.
 */
import { AdminAccessDenied, AdminDashboard, ChatInbox, CustomRequestsQueue } from '@members/ui';
import { Link, Navigate } from 'react-router-dom';
import { useSession } from '../app/session';
import { useSite } from '../app/site';

export default function Admin() {
  const { user, loggedIn, admin } = useSession();
  const site = useSite();
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (!admin) return <AdminAccessDenied email={user.email} role={user.role} />;
  return (
    <div className="container section">
      <h1>Admin Dashboard</h1>
      <nav aria-label="Admin screens" className="admin-screens">
        <Link to="/admin/leaks">Leak tracing</Link>
      </nav>
      <AdminDashboard
        models={site.models.map((m) => m.name)}
        explorerTemplate={site.bitcoin.explorerTxUrl}
        renderMemberLink={(m) => <Link to={`/admin/users/${encodeURIComponent(m.id)}`}>{m.email}</Link>}
        renderVideoPreview={(v) => (
          <Link className="btn btn-secondary btn-sm" to={`/videos/${encodeURIComponent(v.id)}`} aria-label={`Preview ${v.title}`}>
            Preview
          </Link>
        )}
      />
      <ChatInbox />
      <CustomRequestsQueue />
    </div>
  );
}
