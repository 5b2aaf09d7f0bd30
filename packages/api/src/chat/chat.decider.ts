/**
 * One conversation per member with the site's team (issue 30), as events on the stream
 * `chat-<memberId>`: a message sent (by the member or an admin), messages read (by either side, up
 * to the newest message of the other side), a message deleted. Pure: ids, time and who the author
 * is arrive in the command; who may write at all (approval, subscription) is the service's question,
 * asked before the command (it depends on the member's standing, not on the conversation).
 *
 * The member's choice of a mail when the team replies while they are offline (chat/replyMail.ts) is
 * on the same stream (`ChatReplyMailSet`, on unless turned off): it belongs to the conversation.
 *
 * `ChatMessageSent.text` is personal data sealed under the member's data key (shredding/personalData.ts,
 * subject `userId`), admin replies included: an erasure shreds the whole conversation's text.
 */
import { CHAT_MAX_LENGTH } from '@members/ui/api/schemas';
import { accept, type Decider, reject } from '../shared/decider.js';

export type ChatSide = 'member' | 'admin';

export const chatStream = (userId: string) => `chat-${userId}`;

export const CHAT_TEXT_REQUIRED = 'Message cannot be empty';
export const CHAT_TEXT_TOO_LONG = `Message must be at most ${CHAT_MAX_LENGTH} characters`;

export type ChatCommand =
  | { type: 'SendChatMessage'; messageId: string; userId: string; from: ChatSide; authorId: string; text: string; now: string }
  | { type: 'MarkChatRead'; userId: string; reader: ChatSide; readerId: string; now: string }
  | { type: 'DeleteChatMessage'; messageId: string; userId: string; by: ChatSide; actorId: string; now: string }
  | { type: 'SetChatReplyMail'; userId: string; enabled: boolean; now: string };

export type ChatMessageSent = {
  type: 'ChatMessageSent';
  data: { messageId: string; userId: string; from: ChatSide; authorId: string; text: string; sentAt: string };
};
export type ChatMessagesRead = {
  type: 'ChatMessagesRead';
  /** `upTo`: the newest message of the other side when it was read. */
  data: { userId: string; reader: ChatSide; readerId: string; upTo: string; readAt: string };
};
export type ChatMessageDeleted = {
  type: 'ChatMessageDeleted';
  data: { messageId: string; userId: string; by: ChatSide; actorId: string; deletedAt: string };
};
/** The member turned the mail for team replies on or off (account settings). */
export type ChatReplyMailSet = {
  type: 'ChatReplyMailSet';
  data: { userId: string; enabled: boolean; setAt: string };
};
export type ChatEvent = ChatMessageSent | ChatMessagesRead | ChatMessageDeleted | ChatReplyMailSet;

interface MessageState {
  from: ChatSide;
  authorId: string;
  deleted: boolean;
}

export interface ChatState {
  messages: ReadonlyMap<string, MessageState>;
  /** The newest message of each side (deleted ones included: reading past them is still reading). */
  newest: { member: string | null; admin: string | null };
  /** The newest message of the other side each reader has read up to. */
  readUpTo: { member: string | null; admin: string | null };
  /** Mail the member when the team replies while they are offline (on unless turned off). */
  replyMail: boolean;
}

const other = (side: ChatSide): ChatSide => (side === 'member' ? 'admin' : 'member');

/** The text as stored: trimmed; empty or longer than `CHAT_MAX_LENGTH` is refused (the API says so). */
export function chatTextProblem(text: string): string | null {
  const t = text.trim();
  if (t.length === 0) return CHAT_TEXT_REQUIRED;
  if (t.length > CHAT_MAX_LENGTH) return CHAT_TEXT_TOO_LONG;
  return null;
}

export const chatDecider: Decider<ChatCommand, ChatEvent, ChatState> = {
  initialState: () => ({
    messages: new Map(),
    newest: { member: null, admin: null },
    readUpTo: { member: null, admin: null },
    replyMail: true,
  }),

  decide(command, state) {
    switch (command.type) {
      case 'SendChatMessage': {
        const problem = chatTextProblem(command.text);
        if (problem) return reject('validation.invalid_input', problem);
        if (state.messages.has(command.messageId)) return reject('chat.message_exists', 'This message was already sent');
        return accept<ChatEvent>({
          type: 'ChatMessageSent',
          data: {
            messageId: command.messageId,
            userId: command.userId,
            from: command.from,
            authorId: command.authorId,
            text: command.text.trim(),
            sentAt: command.now,
          },
        });
      }
      case 'MarkChatRead': {
        const newest = state.newest[other(command.reader)];
        // Nothing from the other side, or read already: nothing to record.
        if (!newest || state.readUpTo[command.reader] === newest) return accept<ChatEvent>();
        return accept<ChatEvent>({
          type: 'ChatMessagesRead',
          data: { userId: command.userId, reader: command.reader, readerId: command.readerId, upTo: newest, readAt: command.now },
        });
      }
      case 'DeleteChatMessage': {
        const m = state.messages.get(command.messageId);
        if (!m) return reject('chat.message_not_found', 'Message not found');
        // A member deletes only their own messages; an admin any message of the conversation.
        if (command.by === 'member' && m.from !== 'member') return reject('chat.not_own_message', 'You can only delete your own messages');
        if (m.deleted) return accept<ChatEvent>();
        return accept<ChatEvent>({
          type: 'ChatMessageDeleted',
          data: { messageId: command.messageId, userId: command.userId, by: command.by, actorId: command.actorId, deletedAt: command.now },
        });
      }
      case 'SetChatReplyMail':
        // The same choice again records nothing.
        if (state.replyMail === command.enabled) return accept<ChatEvent>();
        return accept<ChatEvent>({
          type: 'ChatReplyMailSet',
          data: { userId: command.userId, enabled: command.enabled, setAt: command.now },
        });
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ChatMessageSent': {
        const messages = new Map(state.messages);
        messages.set(event.data.messageId, { from: event.data.from, authorId: event.data.authorId, deleted: false });
        return { ...state, messages, newest: { ...state.newest, [event.data.from]: event.data.messageId } };
      }
      case 'ChatMessagesRead':
        return { ...state, readUpTo: { ...state.readUpTo, [event.data.reader]: event.data.upTo } };
      case 'ChatMessageDeleted': {
        const m = state.messages.get(event.data.messageId);
        if (!m) return state;
        const messages = new Map(state.messages);
        messages.set(event.data.messageId, { ...m, deleted: true });
        return { ...state, messages };
      }
      case 'ChatReplyMailSet':
        return { ...state, replyMail: event.data.enabled };
    }
  },
};
