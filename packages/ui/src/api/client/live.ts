/**
 * Live show calls (issue 43, docs/live.md): the shows a member sees and a show's live stream; the
 * admin's shows (schedule, rotate the key, end); a show's chat room, its socket and its moderation (unmute too).
 */
import type { AdminLiveShow, LiveShow, LiveStreamInfo, ScheduleLiveShowInput, ShowChatMessage } from '../types';
import type { Calls } from './session';

const showPath = (id: string) => `/live/shows/${encodeURIComponent(id)}`;
const adminShowPath = (id: string) => `/admin/live/shows/${encodeURIComponent(id)}`;

export function liveCalls({ get, post, request, transport }: Calls) {
  const { baseUrl } = transport;
  async function showChatRoom(
    id: string,
    after?: string | null,
  ): Promise<{ messages: ShowChatMessage[]; muted: boolean; mutedMembers?: string[] }> {
    const q = new URLSearchParams({ limit: '100' });
    if (after) q.set('after', after);
    return get<{ messages: ShowChatMessage[]; muted: boolean; mutedMembers?: string[] }>(`${showPath(id)}/chat?${q.toString()}`, {
      redirectOn403: false,
      fallbackError: 'Could not load the chat',
    });
  }
  return {
    liveShows: async (): Promise<LiveShow[]> =>
      (await get<{ shows: LiveShow[] }>('/live/shows', { fallbackError: 'Failed to load live shows' })).shows,
    getLiveStream: (id: string) =>
      get<LiveStreamInfo>(`${showPath(id)}/stream`, {
        redirectOn403: false,
        fallbackError: 'Failed to load the live show',
      }),
    adminLiveShows: async (): Promise<AdminLiveShow[]> =>
      (await get<{ shows: AdminLiveShow[] }>('/admin/live/shows', { fallbackError: 'Failed to load the live shows' })).shows,
    /** The answer carries `streamKey`: the only time the server tells it. */
    scheduleLiveShow: async (input: ScheduleLiveShowInput): Promise<AdminLiveShow> =>
      (await post<{ show: AdminLiveShow }>('/admin/live/shows', input, { fallbackError: 'Could not schedule the show' })).show,
    /** A new key (in `streamKey`, shown once); the old one is refused from now on. */
    rotateLiveShowKey: async (id: string): Promise<AdminLiveShow> =>
      (await post<{ show: AdminLiveShow }>(`${adminShowPath(id)}/key`, undefined, { fallbackError: 'Could not make a new key' })).show,
    endLiveShow: async (id: string): Promise<AdminLiveShow> =>
      (await post<{ show: AdminLiveShow }>(`${adminShowPath(id)}/end`, undefined, { fallbackError: 'Could not end the show' })).show,
    showChatMessages: async (id: string, after?: string | null): Promise<ShowChatMessage[]> => (await showChatRoom(id, after)).messages,
    /** The room's messages, whether staff muted the caller in it, and (staff with `live.chat`) who is muted. */
    showChatRoom,
    /** Refusals (403 muted or not allowed, 409 closed, 429 too fast) come back as ApiError, never a redirect. */
    postShowChatMessage: async (id: string, text: string): Promise<ShowChatMessage> =>
      (
        await post<{ message: ShowChatMessage }>(
          `${showPath(id)}/chat`,
          { text },
          { redirectOn403: false, fallbackError: 'Could not send the message' },
        )
      ).message,
    /** The room's WebSocket URL with a fresh single-use ticket (`after`: resume after that message). */
    showChatSocketUrl: async (id: string, after?: string | null): Promise<string> => {
      const { ticket } = await post<{ ticket: string }>('/chat/ticket');
      const url = new URL(`${baseUrl}${showPath(id)}/chat/socket`, globalThis.location?.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('ticket', ticket);
      if (after) url.searchParams.set('after', after);
      return url.toString();
    },
    deleteShowChatMessage: (id: string, messageId: string) =>
      request<{ deleted: true }>('DELETE', `${adminShowPath(id)}/chat/${encodeURIComponent(messageId)}`, {
        redirectOn403: false,
        fallbackError: 'Could not delete the message',
      }),
    muteShowChatMember: (id: string, userId: string) =>
      post<{ muted: true; userId: string }>(
        `${adminShowPath(id)}/chat/mutes`,
        { userId },
        { redirectOn403: false, fallbackError: 'Could not mute the member' },
      ),
    unmuteShowChatMember: (id: string, userId: string) =>
      request<{ muted: false; userId: string }>('DELETE', `${adminShowPath(id)}/chat/mutes/${encodeURIComponent(userId)}`, {
        redirectOn403: false,
        fallbackError: 'Could not unmute the member',
      }),
  };
}
