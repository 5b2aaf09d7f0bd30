/**
 * A live show's chat room's use cases (issue 43), for its routes (showChat.routes.ts) and tests:
 * post (a viewer the §4 decision allows, asked by the caller before), page through the recent
 * messages, and staff's delete, mute and unmute. The state a command is decided on is read from the read
 * model (is the poster muted, does the message exist), and the events are appended to the room's
 * stream as they come, so a busy room's posts never wait on one another (as the 1:1 chat's send).
 * On PostgreSQL the append's transaction also NOTIFYs `members_live_chat` so every API process
 * pushes the change to the sockets it holds (showChat.live.ts). No HTTP here.
 */
import { type MemberStanding, usersByIds } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import type { ShowRow } from './show.projection.js';
import {
  SHOW_CHAT_MESSAGE_NOT_FOUND,
  type ShowChatCommand,
  type ShowChatEvent,
  type ShowChatState,
  showChatDecider,
  showChatStream,
} from './showChat.decider.js';
import { findShowChatMessage, isMutedInShow, recentShowChat, type ShowChatMessageRow } from './showChat.projection.js';

export const SHOW_CHAT_CHANNEL = 'members_live_chat';
export const SHOW_CHAT_PAGE = 100;

/** What a socket is pushed: a message posted, or one staff deleted. */
export type ShowChatChange = 'posted' | 'deleted';

export interface ShowChatMessageDto {
  id: string;
  showId: string;
  authorId: string;
  author: string;
  text: string;
  postedAt: string;
}

/** A display name only: "First L." (never an e-mail address or a birth date); an erased member's is "erased member". */
function displayName(user: { first_name: string; last_name: string; erased_at?: string | null } | undefined): string {
  if (!user || user.erased_at) return 'erased member';
  const initial = user.last_name.trim().slice(0, 1);
  return `${user.first_name.trim()}${initial ? ` ${initial}.` : ''}`.trim() || 'member';
}

export async function showChatDtos(ctx: Pick<AppContext, 'db'>, rows: ShowChatMessageRow[]): Promise<ShowChatMessageDto[]> {
  const users = await usersByIds(ctx.db, [...new Set(rows.map((r) => r.user_id))]);
  return rows.map((r) => ({
    id: r.id,
    showId: r.show_id,
    authorId: r.user_id,
    author: displayName(users.get(r.user_id)),
    text: r.text,
    postedAt: r.posted_at,
  }));
}

/** Appends the room's events; on PostgreSQL the same transaction tells every process (`kind:id`). */
async function appendToRoom(ctx: AppContext, showId: string, events: ShowChatEvent[], caller: Caller, notify?: string): Promise<void> {
  if (events.length === 0) return;
  await ctx.store.append(showChatStream(showId), events, {
    expectedVersion: 'any',
    metadata: eventMetadata(ctx, caller),
    inTransaction:
      notify && ctx.db.dialect === 'postgres'
        ? async (tx) => {
            await tx.get('SELECT pg_notify(?, ?)', [SHOW_CHAT_CHANNEL, notify]);
          }
        : undefined,
  });
}

const decide = (command: ShowChatCommand, state: ShowChatState) => showChatDecider.decide(command, state);

/** A message from a viewer the §4 decision allowed (the caller asked it): refused when the show ended or they are muted. */
export async function postShowChatMessage(
  ctx: AppContext,
  show: ShowRow,
  viewer: MemberStanding,
  text: string,
  caller: Caller,
): Promise<Result<ShowChatMessageDto>> {
  const messageId = ctx.ids.next();
  const muted = await isMutedInShow(ctx.db, show.id, viewer.id);
  const decided = decide(
    {
      type: 'PostShowChatMessage',
      showId: show.id,
      showStatus: show.status,
      messageId,
      userId: viewer.id,
      text,
      now: ctx.clock.now().toISOString(),
    },
    { messages: new Map(), muted: new Set(muted ? [viewer.id] : []) },
  );
  if (!decided.ok) return decided;
  await appendToRoom(ctx, show.id, decided.events, caller, `posted:${messageId}`);
  const row = await findShowChatMessage(ctx.db, messageId);
  if (!row) throw new Error(`show chat message ${messageId} was appended but not projected`);
  const [dto] = await showChatDtos(ctx, [row]);
  return success(dto as ShowChatMessageDto);
}

/** The room's newest messages (at most 100), oldest first; with `after` (a message of this room), those after it. */
export async function listShowChat(
  ctx: AppContext,
  showId: string,
  page: { after?: string | undefined; limit?: number | undefined },
): Promise<Result<ShowChatMessageDto[]>> {
  const limit = Math.min(page.limit ?? 50, SHOW_CHAT_PAGE);
  let after: number | undefined;
  if (page.after !== undefined) {
    const anchor = await findShowChatMessage(ctx.db, page.after);
    if (!anchor || anchor.show_id !== showId) return failure('live.chat_message_not_found', SHOW_CHAT_MESSAGE_NOT_FOUND);
    after = Number(anchor.position);
  }
  return success(await showChatDtos(ctx, await recentShowChat(ctx.db, showId, limit, after)));
}

/** Staff remove a message from the room (its sealed event stays until an erasure shreds it). */
export async function deleteShowChatMessage(
  ctx: AppContext,
  input: { showId: string; messageId: string; staffId: string },
  caller: Caller,
): Promise<Result<{ deleted: true }>> {
  const row = await findShowChatMessage(ctx.db, input.messageId);
  if (!row || row.show_id !== input.showId) return failure('live.chat_message_not_found', SHOW_CHAT_MESSAGE_NOT_FOUND);
  const decided = decide(
    {
      type: 'DeleteShowChatMessage',
      showId: input.showId,
      messageId: input.messageId,
      deletedBy: input.staffId,
      now: ctx.clock.now().toISOString(),
    },
    { messages: new Map([[row.id, { deleted: row.deleted_at !== null }]]), muted: new Set() },
  );
  if (!decided.ok) return decided;
  await appendToRoom(ctx, input.showId, decided.events, caller, `deleted:${input.messageId}`);
  return success({ deleted: true });
}

/** Staff mute a member for this show: their next message is refused (`live.chat_muted`). */
export async function muteShowChatMember(
  ctx: AppContext,
  input: { showId: string; userId: string; staffId: string },
  caller: Caller,
): Promise<Result<{ muted: true; userId: string }>> {
  const muted = await isMutedInShow(ctx.db, input.showId, input.userId);
  const decided = decide(
    { type: 'MuteShowChatMember', showId: input.showId, userId: input.userId, mutedBy: input.staffId, now: ctx.clock.now().toISOString() },
    { messages: new Map(), muted: new Set(muted ? [input.userId] : []) },
  );
  if (!decided.ok) return decided;
  await appendToRoom(ctx, input.showId, decided.events, caller, `muted:${input.showId}:${input.userId}`);
  return success({ muted: true, userId: input.userId });
}

/** Staff unmute a member for this show: they may post again. Unmuting one not muted changes nothing. */
export async function unmuteShowChatMember(
  ctx: AppContext,
  input: { showId: string; userId: string; staffId: string },
  caller: Caller,
): Promise<Result<{ muted: false; userId: string }>> {
  const muted = await isMutedInShow(ctx.db, input.showId, input.userId);
  const decided = decide(
    {
      type: 'UnmuteShowChatMember',
      showId: input.showId,
      userId: input.userId,
      unmutedBy: input.staffId,
      now: ctx.clock.now().toISOString(),
    },
    { messages: new Map(), muted: new Set(muted ? [input.userId] : []) },
  );
  if (!decided.ok) return decided;
  await appendToRoom(ctx, input.showId, decided.events, caller, `unmuted:${input.showId}:${input.userId}`);
  return success({ muted: false, userId: input.userId });
}
