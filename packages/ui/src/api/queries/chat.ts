/** Chat queries: the keys and fetchers of the member's thread and status and of the admins' inbox. */
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../client';

export const chatKeys = {
  /** Every query of the member's chat (their thread and status). */
  member: ['chat'] as const,
  /** Every query of the admins' inbox (the conversations and each thread). */
  inbox: ['admin', 'chat'] as const,
  messages: ['chat', 'messages'] as const,
  status: ['chat', 'status'] as const,
  conversations: ['admin', 'chat', 'conversations'] as const,
  thread: (userId: string) => ['admin', 'chat', 'thread', userId] as const,
};

export function chatQueries(api: ApiClient) {
  return {
    messages: () => queryOptions({ queryKey: chatKeys.messages, queryFn: () => api.chatMessages() }),
    status: () => queryOptions({ queryKey: chatKeys.status, queryFn: () => api.chatStatus() }),
    conversations: () => queryOptions({ queryKey: chatKeys.conversations, queryFn: () => api.chatConversations() }),
    thread: (userId: string) => queryOptions({ queryKey: chatKeys.thread(userId), queryFn: () => api.memberChatMessages(userId) }),
  };
}
