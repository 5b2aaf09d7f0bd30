/** `/admin/leaks`: Leak tracing for admins (send a leaked copy, see who it names; docs/leak-tracing.md); 'Access Denied' for everyone else. */
import { LeakTracing } from '@members/ui';
import { AdminSubpage } from './AdminSubpage';

export default function Leaks() {
  return (
    <AdminSubpage title="Leak tracing">
      <LeakTracing />
    </AdminSubpage>
  );
}
