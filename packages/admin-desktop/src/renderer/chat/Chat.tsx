/**
 * The members' chat in the desktop console: the shared ChatInbox of @members/ui (the web /admin's
 * component), its live updates taken from the main process's feed (main/chatLive.ts, over IPC or
 * the dev bridge) instead of a WebSocket of its own, which the renderer's CSP forbids. The nav's
 * badge counts the conversations with unread member messages.
 */
import { Alert, ChatInbox, type ChatLiveSource, chatKeys } from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { ChatLiveState, DesktopApi } from '../../shared/ipc.js';

/** How many conversations wait with unread member messages; refreshed on every pushed message and each time the feed goes live. */
export function useUnreadConversations(desktop: DesktopApi, api: ApiClient): number {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: chatKeys.conversations, queryFn: () => api.chatConversations(), refetchInterval: 60_000 });
  useEffect(() => desktop.chat.onMessage(() => void qc.invalidateQueries({ queryKey: chatKeys.conversations })), [desktop, qc]);
  // The feed (re)connected: what came before its socket opened was not pushed, so read again.
  useEffect(
    () =>
      desktop.chat.onState((s) => {
        if (s.status === 'live') void qc.invalidateQueries({ queryKey: chatKeys.inbox });
      }),
    [desktop, qc],
  );
  return (list.data ?? []).filter((c) => c.unread > 0).length;
}

/** The main process's feed state (live, reconnecting, ended). */
function useFeedState(desktop: DesktopApi): ChatLiveState | null {
  const [state, setState] = useState<ChatLiveState | null>(null);
  useEffect(() => {
    let current = true;
    const off = desktop.chat.onState(setState);
    desktop.chat.state().then(
      (s) => current && setState(s),
      () => {},
    );
    return () => {
      current = false;
      off();
    };
  }, [desktop]);
  return state;
}

export function ChatScreen({ desktop, api }: { desktop: DesktopApi; api: ApiClient }) {
  const live = useMemo<ChatLiveSource>(() => (onMessage) => desktop.chat.onMessage(onMessage), [desktop]);
  const feed = useFeedState(desktop);
  return (
    <div>
      {feed?.status === 'ended' && <Alert tone="error">{feed.error ?? 'Live chat updates stopped.'}</Alert>}
      {feed?.status === 'reconnecting' && <Alert tone="info">{feed.error ?? 'Reconnecting to the chat…'}</Alert>}
      <ChatInbox client={api} live={live} />
    </div>
  );
}
