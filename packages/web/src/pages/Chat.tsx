/**
 * `/chat`: the member's conversation with the site's team (issue 30, docs/chat.md). Live through
 * the chat WebSocket; the team's replies are marked read while the page is open. Members without
 * an active subscription (or not approved yet) read their history and see why they cannot write.
 */
import { type ChatMessage, ChatThread, Spinner, useChatSocket, withMessage } from '@members/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { api } from '../app/api';
import { chatKeys, queries } from '../app/queries';
import { useSession } from '../app/session';

export default function Chat() {
  const { loggedIn, admin } = useSession();
  const qc = useQueryClient();
  const messages = useQuery({ ...queries.chat.messages(), enabled: loggedIn && !admin });
  const status = useQuery({ ...queries.chat.status(), enabled: loggedIn && !admin });

  useChatSocket(
    api,
    (m) => {
      qc.setQueryData<ChatMessage[]>(chatKeys.messages, (old) => withMessage(old, m));
      if (m.from === 'admin') void api.markChatRead().then(() => qc.invalidateQueries({ queryKey: chatKeys.status }));
    },
    loggedIn && !admin,
    // A socket just opened: a reply that came before it was not pushed to it.
    () => void qc.invalidateQueries({ queryKey: chatKeys.member }),
  );

  const unread = status.data?.unread ?? 0;
  useEffect(() => {
    if (unread > 0) void api.markChatRead().then(() => qc.invalidateQueries({ queryKey: chatKeys.status }));
  }, [unread, qc]);

  if (!loggedIn) return <Navigate to="/login" replace />;
  if (admin)
    return (
      <div className="container narrow section">
        <h1>Chat</h1>
        <p>
          Members' conversations are in the inbox on the <Link to="/admin">admin dashboard</Link>.
        </p>
      </div>
    );

  return (
    <div className="container narrow section chat-page">
      <h1>Chat with the team</h1>
      {status.data?.vip && (
        <p className="muted">
          VIP chat priority: your messages are answered first. <Link to="/custom-requests">Request a custom video</Link>
        </p>
      )}
      {messages.isLoading || status.isLoading ? (
        <Spinner label="Loading messages..." />
      ) : (
        <ChatThread
          self="member"
          messages={messages.data ?? []}
          cannotWrite={status.data?.canWrite === false ? status.data.reason : null}
          emptyText="No messages yet. Say hello!"
          onSend={async (text) => {
            const m = await api.sendChatMessage(text);
            qc.setQueryData<ChatMessage[]>(chatKeys.messages, (old) => withMessage(old, m));
          }}
        />
      )}
      {status.data?.canWrite === false && (
        <p>
          <Link to="/subscription">See the plans</Link>
        </p>
      )}
    </div>
  );
}
