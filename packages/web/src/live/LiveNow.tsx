/** "Live now" (issue 43): the shows on the air and the next ones, for a signed-in member, on the catalog page. */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api } from '../app/api';
import { useSession } from '../app/session';

export function LiveNow() {
  const { loggedIn } = useSession();
  const shows = useQuery({ queryKey: ['live', 'shows'], queryFn: () => api.liveShows(), enabled: loggedIn, refetchInterval: 30_000 });
  const live = (shows.data ?? []).filter((s) => s.status === 'live');
  if (live.length === 0) return null;
  return (
    <section className="section-tight live-now" aria-labelledby="live-now-title">
      <h2 id="live-now-title">Live now</h2>
      <ul>
        {live.map((s) => (
          <li key={s.id}>
            <span className="live-badge">LIVE</span> <Link to={`/live/${encodeURIComponent(s.id)}`}>{s.title}</Link>
            {!s.mayWatch && <span className="muted"> (not on your plan)</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
