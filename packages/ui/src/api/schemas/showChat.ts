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
export const showChatMessagesAnswerSchema = z.object({ messages: z.array(showChatMessageSchema) });
export const showChatDeletedAnswerSchema = z.object({ deleted: z.literal(true) });
export const showChatMutedAnswerSchema = z.object({ muted: z.literal(true), userId: z.string() });
