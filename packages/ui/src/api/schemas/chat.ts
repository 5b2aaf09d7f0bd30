/** Members' chat with the site's team (issue 30) as the API answers it; the interface is fixed by the issue. */
import { z } from 'zod';
import { CHAT_MAX_LENGTH, CUSTOM_REQUEST_MAX_LENGTH } from '../chatLimits';

export { CHAT_MAX_LENGTH, CUSTOM_REQUEST_MAX_LENGTH };

/** One message of a conversation; `text` is plain text (clients render it as text, never HTML). */
export const chatMessageSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    from: z.enum(['member', 'admin']),
    sentAt: z.string(),
  })
  .meta({ id: 'ChatMessage' });
export const chatMessageAnswerSchema = z.object({ message: chatMessageSchema });
export const chatMessagesAnswerSchema = z.object({ messages: z.array(chatMessageSchema) });
export const chatReadAnswerSchema = z.object({ read: z.number().int() });
export const chatDeletedAnswerSchema = z.object({ deleted: z.literal(true) });

/** The member's own view of their conversation: may they write, and how many team replies are unread. */
export const chatStatusSchema = z
  .object({
    canWrite: z.boolean(),
    /** Why not (the access decision's words), or null. */
    reason: z.string().nullable(),
    unread: z.number().int(),
    vip: z.boolean(),
  })
  .meta({ id: 'ChatStatus' });

/** A single-use, 60-second ticket for `GET /api/chat/socket?ticket=…` (browsers cannot send a bearer token on a WebSocket). */
export const chatTicketAnswerSchema = z.object({ ticket: z.string(), expiresAt: z.string() });

/** A line of the admin inbox: VIP (annual) conversations first, then the longest waiting. */
export const chatConversationSchema = z
  .object({
    userId: z.string(),
    displayName: z.string(),
    plan: z.enum(['monthly', 'annual']).nullable(),
    vip: z.boolean(),
    /** Member messages the team has not read. */
    unread: z.number().int(),
    /** When the oldest unanswered member message was sent (null: nothing waits for an answer). */
    waitingSince: z.string().nullable(),
    lastMessageAt: z.string(),
  })
  .meta({ id: 'ChatConversation' });
export const chatConversationsAnswerSchema = z.object({ conversations: z.array(chatConversationSchema) });

/** What the socket pushes for every new message of the ticket's conversation(s); `userId` names the conversation. */
export const chatSocketMessageSchema = z.object({
  type: z.literal('message'),
  message: chatMessageSchema.extend({ userId: z.string() }),
});

export const CUSTOM_REQUEST_STATUSES = ['requested', 'quoted', 'declined', 'paid', 'delivered'] as const;

/** A custom video request as its member and the admins see it. */
export const customRequestSchema = z
  .object({
    id: z.string(),
    status: z.enum(CUSTOM_REQUEST_STATUSES),
    description: z.string(),
    requestedAt: z.string(),
    /** The quoted price (null before a quote). */
    btcAmount: z.string().nullable(),
    declineReason: z.string().nullable(),
    /** The payment opened to pay the quote: where to send how much (null before one). */
    payment: z
      .object({
        id: z.string(),
        address: z.string().nullable(),
        btcAmount: z.string(),
        status: z.string(),
        bip21Uri: z.string().nullable(),
      })
      .nullable(),
    /** The delivered video (visible to its requester only). */
    videoId: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CustomRequest' });
/** The admins' view adds who asked. */
export const adminCustomRequestSchema = customRequestSchema
  .extend({ userId: z.string(), displayName: z.string() })
  .meta({ id: 'AdminCustomRequest' });
export const customRequestAnswerSchema = z.object({ request: customRequestSchema });
export const customRequestsAnswerSchema = z.object({ requests: z.array(customRequestSchema) });
export const adminCustomRequestsAnswerSchema = z.object({ requests: z.array(adminCustomRequestSchema) });
/** `POST /custom-requests/{id}/pay`: the payment to send the quoted amount to (a fresh address, like a subscription payment). */
export const customRequestPaymentAnswerSchema = z.object({
  payment: z.object({ id: z.string(), address: z.string().nullable(), btcAmount: z.string(), bip21Uri: z.string().nullable() }),
  request: customRequestSchema,
});

/** The setting's label on the account page; the mail itself names it, so both say the same. */
export { CHAT_REPLY_MAIL_LABEL } from '../../format/notifications';

/** The member's mail settings (`/users/me/notifications`): a mail when the team replies while they are offline (on by default). */
export const notificationSettingsSchema = z
  .object({
    /** One discreet mail per burst of team replies the member has not read while offline. */
    chatReplyMail: z.boolean(),
  })
  .meta({ id: 'NotificationSettings' });
