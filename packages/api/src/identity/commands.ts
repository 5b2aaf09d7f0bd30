/** Runs a user command through the event store and turns a domain refusal into an HTTP error. */
import type { AppContext } from '../context.js';
import { handleCommand } from '../eventstore/commandHandler.js';
import type { EventMetadata, RecordedEvent } from '../eventstore/types.js';
import { fromDomainError } from '../http/envelope.js';
import { type UserCommand, type UserState, userDecider, userStream } from './user.decider.js';

export interface CommandMeta {
  actorId?: string | null;
  requestId?: string | null;
  /** Origin for links mailed because of this command (PUBLIC_URL or the request's origin). */
  origin?: string;
}

/**
 * @example await runUserCommand(ctx, userId, { type: 'Approve', approvedBy: admin.id, now }, { actorId: admin.id })
 */
export async function runUserCommand(
  ctx: AppContext,
  userId: string,
  command: UserCommand,
  meta: CommandMeta = {},
): Promise<{ state: UserState; recorded: RecordedEvent[] }> {
  const metadata: EventMetadata = { actorId: meta.actorId ?? null, requestId: meta.requestId ?? null, at: ctx.clock.now().toISOString() };
  if (meta.origin) metadata.origin = meta.origin;
  const result = await handleCommand(ctx.store, userStream(userId), userDecider, command, metadata);
  if (!result.ok) throw fromDomainError(result.error);
  return { state: result.state, recorded: result.recorded };
}

/** Where mailed links point: PUBLIC_URL when configured, else the origin the request came to. */
export function linkOrigin(ctx: AppContext, requestUrl: string): string {
  return (ctx.env.PUBLIC_URL ?? new URL(requestUrl).origin).replace(/\/+$/, '');
}
