/**
 * An admin's suspension of an approved member, and its reinstatement. Suspending appends
 * `UserSuspended` and ends every session of the member (their access and refresh tokens stop at the
 * next request); while suspended they cannot sign in, and the access decision (`@members/ui/access`)
 * refuses them premium and free videos alike with its own message. Reinstating appends
 * `UserReinstated`: the member is approved again and signs in as before. Their subscription and
 * payments are left as they are either way.
 */
import type { AppContext } from '../kernel/context.js';
import type { Caller } from '../shared/eventMetadata.js';
import { type Result, success } from '../shared/result.js';
import { runUserCommand } from './accounts.service.js';
import { revokeUserSessions } from './sessions.js';
import { announceSessionsEnded } from './sessionsEnded.js';

/** @example await suspendUser(ctx, memberId, 'Chargeback fraud', { actorId: admin.id }) */
export async function suspendUser(
  ctx: AppContext,
  userId: string,
  reason: string,
  caller: Caller & { actorId: string },
): Promise<Result<{ sessionsEnded: number }>> {
  const now = ctx.clock.now();
  const ran = await runUserCommand(ctx, userId, { type: 'Suspend', suspendedBy: caller.actorId, reason, now: now.toISOString() }, caller);
  if (!ran.ok) return ran;
  const sessionsEnded = await revokeUserSessions(ctx.db, userId, now);
  await announceSessionsEnded(ctx, userId);
  ctx.logger.info({ userId, actorId: caller.actorId, sessionsEnded }, 'member suspended');
  return success({ sessionsEnded });
}

export async function reinstateUser(ctx: AppContext, userId: string, caller: Caller & { actorId: string }): Promise<Result<void>> {
  const ran = await runUserCommand(
    ctx,
    userId,
    { type: 'Reinstate', reinstatedBy: caller.actorId, now: ctx.clock.now().toISOString() },
    caller,
  );
  if (!ran.ok) return ran;
  ctx.logger.info({ userId, actorId: caller.actorId }, 'member reinstated');
  return success(undefined);
}
