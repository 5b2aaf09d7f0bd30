/**
 * The header's "Chat" link with the count of unread team replies, for members who may use the live
 * chat, and "Requests" (custom video requests) for the annual (VIP) ones (issue 30).
 */
import { StatusBadge } from '@members/ui';
import { chatAccess } from '@members/ui/access';
import { useQuery } from '@tanstack/react-query';
import { NavLink } from 'react-router-dom';
import { queries } from '../app/queries';
import { useSession } from '../app/session';

export function ChatLink() {
  const { user, loggedIn, admin } = useSession();
  const allowed = loggedIn && !admin && chatAccess(user).allowed;
  const status = useQuery({ ...queries.chat.status(), enabled: allowed, refetchInterval: 60_000 });
  if (!allowed) return null;
  const unread = status.data?.unread ?? 0;
  return (
    <>
      <NavLink to="/chat" className="chat-link">
        Chat
        {unread > 0 && (
          <StatusBadge tone="danger" className="chat-unread">
            {unread}
            <span className="visually-hidden"> unread</span>
          </StatusBadge>
        )}
      </NavLink>
      {/* Annual (VIP) members also request custom videos. */}
      {status.data?.vip && <NavLink to="/custom-requests">Requests</NavLink>}
    </>
  );
}
