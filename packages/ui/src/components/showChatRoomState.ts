/**
 * The state of a live show's chat room on the page (issue 43), kept pure so it is tested without a
 * browser: the messages in the order they were posted, merged from the first read, the socket's
 * pushes and the POST's own answer (the same message can come by two of them), and the ids staff
 * removed, so a removed message never comes back (a push replayed after a reconnect's `after=`, a
 * late POST answer). Also the words a refused post is shown in.
 */
import type { ShowChatMessage, ShowChatPush } from '../api/types';

export interface ShowChatRoomState {
  messages: ShowChatMessage[];
  removed: ReadonlySet<string>;
}

export const emptyRoom: ShowChatRoomState = { messages: [], removed: new Set() };

/** Adds a message unless it is there already or was removed, after every message posted at the same time or before. */
export function roomWithMessage(room: ShowChatRoomState, m: ShowChatMessage): ShowChatRoomState {
  if (room.removed.has(m.id) || room.messages.some((x) => x.id === m.id)) return room;
  // ISO 8601 UTC times compare as strings.
  const at = room.messages.findIndex((x) => x.postedAt > m.postedAt);
  const messages = at < 0 ? [...room.messages, m] : [...room.messages.slice(0, at), m, ...room.messages.slice(at)];
  return { ...room, messages };
}

/** Merges a page read from the API (the first read, or a catch-up after the socket opened). */
export function roomWithPage(room: ShowChatRoomState, page: readonly ShowChatMessage[]): ShowChatRoomState {
  return page.reduce(roomWithMessage, room);
}

/** Takes out a message staff removed, and remembers it is gone. */
export function roomWithout(room: ShowChatRoomState, messageId: string): ShowChatRoomState {
  return { messages: room.messages.filter((m) => m.id !== messageId), removed: new Set([...room.removed, messageId]) };
}

/** One push of the room's socket applied; anything else (another room's, an unknown type) changes nothing. */
export function roomWithPush(room: ShowChatRoomState, push: ShowChatPush, showId: string): ShowChatRoomState {
  if (push.type === 'message') return push.message.showId === showId ? roomWithMessage(room, push.message) : room;
  if (push.type === 'deleted') return push.showId === showId ? roomWithout(room, push.messageId) : room;
  return room;
}

/** A socket frame read as a push, or null when it is not one of ours. */
export function parseShowChatPush(data: unknown): ShowChatPush | null {
  try {
    const push = JSON.parse(String(data)) as Partial<ShowChatPush> | null;
    if (push?.type === 'message' && typeof push.message?.id === 'string') return push as ShowChatPush;
    if (push?.type === 'deleted' && typeof push.messageId === 'string' && typeof push.showId === 'string') return push as ShowChatPush;
    if ((push?.type === 'muted' || push?.type === 'unmuted') && typeof push.userId === 'string' && typeof push.showId === 'string')
      return push as ShowChatPush;
  } catch {
    // not JSON: not a push of ours
  }
  return null;
}

/** What a muted viewer reads in the room, before they type and when a post is refused. */
export const SHOW_CHAT_MUTED_NOTICE = 'A moderator muted you in this show’s chat: you can read it, not write.';

/** Why a post was refused, in the words the room shows (not an error page): by the API's code, else its message. */
export function showChatRefusal(err: unknown): string {
  const e = err as { status?: number; code?: string; message?: string } | null;
  switch (e?.code) {
    case 'live.chat_closed':
      return 'The show has ended: its chat is closed.';
    case 'live.chat_muted':
      return SHOW_CHAT_MUTED_NOTICE;
    case 'rate_limited':
      return 'You are sending messages too fast. Wait a moment, then send again.';
    case 'access.not_logged_in':
      return 'Sign in to chat.';
  }
  return e?.message || 'Could not send the message.';
}
