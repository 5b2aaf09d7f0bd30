/** Chat calls (docs/chat.md): the member's thread, its socket ticket, and the admins' inbox. */
import type { ChatConversation, ChatMessage, ChatStatus } from '../types';
import type { Calls } from './session';

function chatPageQuery(page: { before?: string; after?: string }): string {
  const q = new URLSearchParams({ limit: '100' });
  if (page.before) q.set('before', page.before);
  if (page.after) q.set('after', page.after);
  return `?${q.toString()}`;
}

export function chatCalls({ get, post, transport }: Calls) {
  const { baseUrl } = transport;
  return {
    chatMessages: async (page: { before?: string; after?: string } = {}): Promise<ChatMessage[]> =>
      (await get<{ messages: ChatMessage[] }>(`/chat/messages${chatPageQuery(page)}`)).messages,
    sendChatMessage: async (text: string): Promise<ChatMessage> =>
      (
        await post<{ message: ChatMessage }>(
          '/chat/messages',
          { text },
          { redirectOn403: false, fallbackError: 'Could not send the message' },
        )
      ).message,
    chatStatus: () => get<ChatStatus>('/chat/status'),
    markChatRead: () => post<{ read: number }>('/chat/read'),
    /** The WebSocket URL with a fresh single-use ticket (`after`: resume after that message). */
    chatSocketUrl: async (after?: string | null): Promise<string> => {
      const { ticket } = await post<{ ticket: string }>('/chat/ticket');
      const url = new URL(`${baseUrl}/chat/socket`, globalThis.location?.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('ticket', ticket);
      if (after) url.searchParams.set('after', after);
      return url.toString();
    },
    chatConversations: async (): Promise<ChatConversation[]> =>
      (await get<{ conversations: ChatConversation[] }>('/admin/chat/conversations')).conversations,
    memberChatMessages: async (userId: string): Promise<ChatMessage[]> =>
      (await get<{ messages: ChatMessage[] }>(`/admin/chat/conversations/${encodeURIComponent(userId)}/messages?limit=100`)).messages,
    replyToMember: async (userId: string, text: string): Promise<ChatMessage> =>
      (
        await post<{ message: ChatMessage }>(
          `/admin/chat/conversations/${encodeURIComponent(userId)}/messages`,
          { text },
          {
            fallbackError: 'Could not send the reply',
          },
        )
      ).message,
    markMemberChatRead: (userId: string) => post<{ read: number }>(`/admin/chat/conversations/${encodeURIComponent(userId)}/read`),
  };
}
