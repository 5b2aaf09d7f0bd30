/**
 * The metadata every append carries, built in one place: who caused it (`actorId`, null for the
 * system), which request (`requestId`), when (`at`, from the injected clock) and, for commands that
 * mail a link, the origin the link points to. Jobs name themselves with `actor`.
 */

import type { Clock } from './clock.js';
import type { EventMetadata } from './events.js';

/** Who is calling a use case: the signed-in user (or null), and the HTTP request when there is one. */
export interface Caller {
  actorId: string | null;
  requestId?: string | null | undefined;
  /** Origin for links mailed because of this command (PUBLIC_URL: http/linkOrigin.ts). */
  origin?: string | undefined;
  /** A named system actor (e.g. 'billing-scheduler') when no user caused it. */
  actor?: string | undefined;
}

export const SYSTEM_CALLER: Caller = { actorId: null };

/**
 * @example eventMetadata(ctx, { actorId: admin.id, requestId }) // { actorId, requestId, at: '2026-…' }
 */
export function eventMetadata(ctx: { clock: Clock }, caller: Caller, extra: Record<string, unknown> = {}): EventMetadata {
  const metadata: EventMetadata = { actorId: caller.actorId, requestId: caller.requestId ?? null, at: ctx.clock.now().toISOString() };
  if (caller.actor) metadata.actor = caller.actor;
  if (caller.origin) metadata.origin = caller.origin;
  return { ...metadata, ...extra };
}
