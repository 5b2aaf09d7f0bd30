import { z } from 'zod';

/** The longest message of a live show's chat room (issue 43): a line or two beside the player. */
export const SHOW_CHAT_MAX_LENGTH = 500;

/**
 * One message of a live show's chat room. `author` is a display name only (first name and the
 * initial of the last name; an erased member reads "erased member"): no e-mail address, no birth
 * date, to members and staff alike. `authorId` lets staff mute the author for the show.
 */
export const showChatMessageSchema = z
  .object({
    id: z.string(),
    showId: z.string(),
    authorId: z.string(),
    author: z.string(),
    text: z.string(),
    postedAt: z.string(),
  })
  .meta({ id: 'ShowChatMessage' });

export const showChatMessageAnswerSchema = z.object({ message: showChatMessageSchema });
export const showChatMessagesAnswerSchema = z.object({
  messages: z.array(showChatMessageSchema),
  /** Staff muted the caller in this room: their posts are refused (403 `live.chat_muted`) until unmuted. */
  muted: z.boolean(),
  /** Staff with `live.chat` only: the members muted in this room (each gets "Unmute"). */
  mutedMembers: z.array(z.string()).optional(),
});
export const showChatDeletedAnswerSchema = z.object({ deleted: z.literal(true) });
export const showChatMutedAnswerSchema = z.object({ muted: z.literal(true), userId: z.string() });
export const showChatUnmutedAnswerSchema = z.object({ muted: z.literal(false), userId: z.string() });

/**
 * One push of the room's socket (docs/live.md): a message posted, or one staff removed; to a muted
 * member's own sockets, their mute and unmute. The desktop
 * console's main process reads its relay's frames with it (admin-desktop main/chatLive.ts).
 */
export const showChatPushSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), message: showChatMessageSchema }),
  z.object({ type: z.literal('deleted'), showId: z.string(), messageId: z.string() }),
  z.object({ type: z.enum(['muted', 'unmuted']), showId: z.string(), userId: z.string() }),
]);
