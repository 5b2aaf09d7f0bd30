/**
 * `/admin`: the shared AdminDashboard, the members' chat inbox and the custom requests queue for admins, links to Live shows and Leak tracing,
 * the team (staff, invitations, reads of personal data); 'Access Denied' for everyone else. Each part shows only if the staff
 * member's role allows it (@members/ui/staffRoles). A library row's "Preview" opens the video's player page, where an admin plays any video.
 */
import { AdminAccessDenied, AdminDashboard, ChatInbox, CustomRequestsQueue, can, STAFF_ROLE_LABELS, StaffAdmin } from '@members/ui';
import { Link, Navigate } from 'react-router-dom';
import { api } from '../app/api';
import { useSession } from '../app/session';
import { useSite } from '../app/site';

export default function Admin() {
  const { user, loggedIn, admin } = useSession();
  const site = useSite();
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (!admin) return <AdminAccessDenied email={user.email} role={user.role} />;
  const role = user.staffRole ?? 'owner';
  return (
    <div className="container section">
      <h1>Admin Dashboard</h1>
      <p className="muted">
        Signed in as <bdi>{user.firstName || user.email}</bdi> ({STAFF_ROLE_LABELS[role]})
      </p>
      {(can(role, 'forensics') || can(role, 'videos')) && (
        <nav aria-label="Admin screens" className="admin-screens">
          {can(role, 'videos') && <Link to="/admin/live">Live shows</Link>}
          {can(role, 'forensics') && <Link to="/admin/leaks">Leak tracing</Link>}
        </nav>
      )}
      <AdminDashboard
        staffRole={role}
        models={site.models.map((m) => m.name)}
        explorerTemplate={site.bitcoin.explorerTxUrl}
        renderMemberLink={(m) =>
          can(role, 'members.history') ? <Link to={`/admin/users/${encodeURIComponent(m.id)}`}>{m.email}</Link> : m.email
        }
        renderVideoPreview={(v) => (
          <Link className="btn btn-secondary btn-sm" to={`/videos/${encodeURIComponent(v.id)}`} aria-label={`Preview ${v.title}`}>
            Preview
          </Link>
        )}
      />
      {can(role, 'chat') && <ChatInbox />}
      {can(role, 'requests') && <CustomRequestsQueue />}
      {can(role, 'staff') && <StaffAdmin api={api} selfId={user.id} />}
    </div>
  );
}
