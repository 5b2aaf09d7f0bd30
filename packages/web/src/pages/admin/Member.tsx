/** `/admin/users/:id`: a member's page for admins (history from their events, erasure); 'Access Denied' for everyone else. */
import { MemberHistoryView } from '@members/ui';
import { useParams } from 'react-router-dom';
import { useSession } from '../../app/session';
import { useSite } from '../../app/site';
import { AdminSubpage } from './AdminSubpage';

export default function Member() {
  const { id = '' } = useParams();
  const site = useSite();
  const { user } = useSession();
  return (
    <AdminSubpage title="Member">
      <MemberHistoryView key={id} memberId={id} explorerTemplate={site.bitcoin.explorerTxUrl} staffRole={user?.staffRole} />
    </AdminSubpage>
  );
}
