/** `/admin/live`: the live shows for staff with the `videos` permission (schedule, the key shown once, a new key, end; docs/live.md). */
import { can, LiveShowsAdmin } from '@members/ui';
import { Link } from 'react-router-dom';
import { useSession } from '../../app/session';
import { AdminSubpage } from './AdminSubpage';

export default function Live() {
  const { user } = useSession();
  const role = user?.staffRole ?? 'owner';
  return (
    <AdminSubpage title="Live shows">
      {can(role, 'videos') ? (
        <LiveShowsAdmin renderShowLink={(s) => <Link to={`/live/${encodeURIComponent(s.id)}`}>{s.title}</Link>} />
      ) : (
        <p>Your staff role does not allow this (it needs the "videos" permission).</p>
      )}
    </AdminSubpage>
  );
}
