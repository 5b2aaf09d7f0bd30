/**
 * The admin's chat inbox, shared by the web /admin page and the desktop console: conversations
 * (VIP first, then the longest waiting, as the API orders them) with the VIP badge, how long the
 * member has waited and the unread count; the selected conversation's thread with a reply box.
 * Live through the chat WebSocket (an admin's ticket follows every conversation), or through the
 * `live` source a host passes instead (the desktop console relays its main process's socket).
 * Needs a QueryClientProvider above it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import { adminKeys, adminQueries, chatKeys, chatQueries } from '../api/queries';
import type { AdminStats, ChatConversation, ChatMessage } from '../api/types';
import { useOptionalApiClient } from './ApiContext';
import { Card } from './Card';
import { ChatThread, withMessage } from './ChatThread';
import { EmptyState, Spinner } from './Feedback';
import { StatusBadge } from './StatusBadge';
import { type ChatLiveSource, useChatFeed } from './useChatSocket';

/** "5 min", "2 h", "3 d" for a span of seconds. */
export function spanLabel(seconds: number): string {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h`;
  return `${Math.floor(minutes / (24 * 60))} d`;
}

/** "waiting 5 min", "waiting 2 h", "waiting 3 d" since `since`. */
export function waitingFor(since: string, now: number = Date.now()): string {
  return `waiting ${spanLabel((now - new Date(since).getTime()) / 1000)}`;
}

type TierAnswers = AdminStats['chatAnswers']['vip'];
const answerLabel = (t: TierAnswers) =>
  t.medianSeconds === null ? 'none answered' : `${spanLabel(t.medianSeconds)} (${t.answered} answered)`;

export interface ChatInboxProps {
  client?: ApiClient;
  /** Where live messages come from; default: a WebSocket of this page's own. */
  live?: ChatLiveSource;
}

export function ChatInbox({ client, live }: ChatInboxProps) {
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('ChatInbox needs a client prop or an <ApiClientProvider>');
  const qc = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const [, setTick] = useState(0);

  // The dashboard's figures (the same query as its stat cards): the median answer time per tier.
  const stats = useQuery(adminQueries(api).stats());
  const list = useQuery({ ...chatQueries(api).conversations(), refetchInterval: 60_000 });
  const thread = useQuery({ ...chatQueries(api).thread(selected ?? ''), enabled: selected !== null });
  const markRead = useMutation({
    mutationFn: (userId: string) => api.markMemberChatRead(userId),
    onSuccess: () => qc.invalidateQueries({ queryKey: chatKeys.conversations }),
  });

  // Waiting times move on without a new message.
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 30_000);
    return () => clearInterval(t);
  }, []);

  // Opening a conversation with unread messages marks them read.
  const conversations: ChatConversation[] = list.data ?? [];
  const open = conversations.find((c) => c.userId === selected);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the open conversation's unread count changes
  useEffect(() => {
    if (open && open.unread > 0 && !markRead.isPending) markRead.mutate(open.userId);
  }, [open?.userId, open?.unread]);

  useChatFeed(
    api,
    (m) => {
      qc.setQueryData<ChatMessage[]>(chatKeys.thread(m.userId), (old) => (old ? withMessage(old, m) : old));
      void qc.invalidateQueries({ queryKey: chatKeys.conversations });
    },
    live,
    // A socket just opened: what came before it was not pushed to it.
    () => void qc.invalidateQueries({ queryKey: chatKeys.inbox }),
  );

  return (
    <Card title="Member chat">
      {stats.data && (
        <p className="chat-answer-times">
          Median answer, last 30 days: VIP {answerLabel(stats.data.chatAnswers.vip)} · others {answerLabel(stats.data.chatAnswers.standard)}
        </p>
      )}
      <div className="chat-inbox">
        <nav aria-label="Conversations" className="chat-conversations">
          {list.isLoading && <Spinner label="Loading conversations..." />}
          {!list.isLoading && conversations.length === 0 && <EmptyState>No conversations yet.</EmptyState>}
          <ul>
            {conversations.map((c) => (
              <li key={c.userId}>
                <button
                  type="button"
                  className={`chat-conversation${c.userId === selected ? ' selected' : ''}`}
                  aria-current={c.userId === selected ? 'true' : undefined}
                  onClick={() => setSelected(c.userId)}
                >
                  <span className="chat-name" dir="auto">
                    {c.displayName}
                  </span>
                  {c.vip && <StatusBadge tone="brand">VIP</StatusBadge>}
                  {c.unread > 0 && (
                    <StatusBadge tone="danger">
                      {c.unread}
                      <span className="visually-hidden"> unread</span>
                    </StatusBadge>
                  )}
                  <span className="chat-waiting">{c.waitingSince ? waitingFor(c.waitingSince) : 'answered'}</span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <section className="chat-open" aria-label="Conversation">
          {selected === null ? (
            <EmptyState>Choose a conversation.</EmptyState>
          ) : thread.isLoading ? (
            <Spinner label="Loading messages..." />
          ) : (
            <ChatThread
              self="admin"
              label="Reply"
              messages={thread.data ?? []}
              onSend={async (text) => {
                const m = await api.replyToMember(selected, text);
                qc.setQueryData<ChatMessage[]>(chatKeys.thread(selected), (old) => withMessage(old, m));
                void qc.invalidateQueries({ queryKey: chatKeys.conversations });
                void qc.invalidateQueries({ queryKey: adminKeys.stats });
              }}
            />
          )}
        </section>
      </div>
    </Card>
  );
}
