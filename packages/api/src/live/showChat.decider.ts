/**
 * A live show's chat room (issue 43 item 4), as events on the stream `live-chat-{showId}`: a member's
 * message posted, a message deleted by staff, a member muted for the show by staff, and unmuted. Pure: ids, time,
 * the show's status and who acts arrive in the command. Whether the poster may watch the show at
 * all (spec §4's decision, with the videos' codes and messages) and the per-member rate limit are
 * asked before the command by the service and the route, as the 1:1 chat asks its access; the
 * decider refuses what the room itself knows: an ended show, a muted member, an empty or long text.
 *
 * `ShowChatMessagePosted.text` is personal data sealed under the poster's data key
 * (shredding/personalData.ts, subject `userId`): an erasure shreds it as it shreds the 1:1 chat's.
 */
import { SHOW_CHAT_MAX_LENGTH } from '@members/ui/api/schemas';
import { accept, type Decider, reject } from '../shared/decider.js';

export const showChatStream = (showId: string) => `live-chat-${showId}`;

export const SHOW_CHAT_TEXT_REQUIRED = 'Message cannot be empty';
export const SHOW_CHAT_TEXT_TOO_LONG = `Message must be at most ${SHOW_CHAT_MAX_LENGTH} characters`;
export const SHOW_CHAT_CLOSED = 'This show has ended: its chat is closed.';
export const SHOW_CHAT_MUTED = 'You have been muted in this show’s chat.';
export const SHOW_CHAT_MESSAGE_NOT_FOUND = 'Message not found';

export type ShowChatCommand =
  | {
      type: 'PostShowChatMessage';
      showId: string;
      showStatus: 'scheduled' | 'live' | 'ended';
      messageId: string;
      userId: string;
      text: string;
      now: string;
    }
  | { type: 'DeleteShowChatMessage'; showId: string; messageId: string; deletedBy: string; now: string }
  | { type: 'MuteShowChatMember'; showId: string; userId: string; mutedBy: string; now: string }
  | { type: 'UnmuteShowChatMember'; showId: string; userId: string; unmutedBy: string; now: string };

export type ShowChatMessagePosted = {
  type: 'ShowChatMessagePosted';
  data: { showId: string; messageId: string; userId: string; text: string; postedAt: string };
};
export type ShowChatMessageDeleted = {
  type: 'ShowChatMessageDeleted';
  data: { showId: string; messageId: string; deletedBy: string; deletedAt: string };
};
export type ShowChatMemberMuted = {
  type: 'ShowChatMemberMuted';
  data: { showId: string; userId: string; mutedBy: string; mutedAt: string };
};
export type ShowChatMemberUnmuted = {
  type: 'ShowChatMemberUnmuted';
  data: { showId: string; userId: string; unmutedBy: string; unmutedAt: string };
};
export type ShowChatEvent = ShowChatMessagePosted | ShowChatMessageDeleted | ShowChatMemberMuted | ShowChatMemberUnmuted;
export const SHOW_CHAT_EVENT_TYPES = [
  'ShowChatMessagePosted',
  'ShowChatMessageDeleted',
  'ShowChatMemberMuted',
  'ShowChatMemberUnmuted',
] as const;

export interface ShowChatState {
  /** Each message of the room: deleted or not. */
  messages: ReadonlyMap<string, { deleted: boolean }>;
  /** The members staff muted for this show. */
  muted: ReadonlySet<string>;
}

/** The text as stored: trimmed; empty or longer than `SHOW_CHAT_MAX_LENGTH` is refused. */
export function showChatTextProblem(text: string): string | null {
  const t = text.trim();
  if (t.length === 0) return SHOW_CHAT_TEXT_REQUIRED;
  if (t.length > SHOW_CHAT_MAX_LENGTH) return SHOW_CHAT_TEXT_TOO_LONG;
  return null;
}

function decide(command: ShowChatCommand, state: ShowChatState) {
  switch (command.type) {
    case 'PostShowChatMessage': {
      // The room opens with the show's page (scheduled: the audience gathers) and closes at its end.
      if (command.showStatus === 'ended') return reject('live.chat_closed', SHOW_CHAT_CLOSED);
      if (state.muted.has(command.userId)) return reject('live.chat_muted', SHOW_CHAT_MUTED);
      const problem = showChatTextProblem(command.text);
      if (problem) return reject('validation.invalid_input', problem);
      if (state.messages.has(command.messageId)) return reject('live.state_conflict', 'This message was already posted');
      return accept<ShowChatEvent>({
        type: 'ShowChatMessagePosted',
        data: {
          showId: command.showId,
          messageId: command.messageId,
          userId: command.userId,
          text: command.text.trim(),
          postedAt: command.now,
        },
      });
    }
    case 'DeleteShowChatMessage': {
      const m = state.messages.get(command.messageId);
      if (!m) return reject('live.chat_message_not_found', SHOW_CHAT_MESSAGE_NOT_FOUND);
      // Deleting twice (two moderators at once) records one deletion.
      if (m.deleted) return accept<ShowChatEvent>();
      return accept<ShowChatEvent>({
        type: 'ShowChatMessageDeleted',
        data: { showId: command.showId, messageId: command.messageId, deletedBy: command.deletedBy, deletedAt: command.now },
      });
    }
    case 'MuteShowChatMember':
      if (state.muted.has(command.userId)) return accept<ShowChatEvent>();
      return accept<ShowChatEvent>({
        type: 'ShowChatMemberMuted',
        data: { showId: command.showId, userId: command.userId, mutedBy: command.mutedBy, mutedAt: command.now },
      });
    case 'UnmuteShowChatMember':
      // Unmuting one not muted (two moderators at once, a stale screen) records nothing.
      if (!state.muted.has(command.userId)) return accept<ShowChatEvent>();
      return accept<ShowChatEvent>({
        type: 'ShowChatMemberUnmuted',
        data: { showId: command.showId, userId: command.userId, unmutedBy: command.unmutedBy, unmutedAt: command.now },
      });
  }
}

function evolve(state: ShowChatState, event: ShowChatEvent): ShowChatState {
  switch (event.type) {
    case 'ShowChatMessagePosted': {
      const messages = new Map(state.messages);
      messages.set(event.data.messageId, { deleted: false });
      return { ...state, messages };
    }
    case 'ShowChatMessageDeleted': {
      if (!state.messages.has(event.data.messageId)) return state;
      const messages = new Map(state.messages);
      messages.set(event.data.messageId, { deleted: true });
      return { ...state, messages };
    }
    case 'ShowChatMemberMuted':
      return { ...state, muted: new Set([...state.muted, event.data.userId]) };
    case 'ShowChatMemberUnmuted': {
      const muted = new Set(state.muted);
      muted.delete(event.data.userId);
      return { ...state, muted };
    }
  }
}

export const showChatDecider: Decider<ShowChatCommand, ShowChatEvent, ShowChatState> = {
  initialState: () => ({ messages: new Map(), muted: new Set() }),
  decide,
  evolve,
};
