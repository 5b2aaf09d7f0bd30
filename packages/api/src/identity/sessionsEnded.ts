/**
 * "This account's sessions just ended" (sign-out, a revoked session, suspension, erasure, a password
 * reset), told to whatever holds something open for the account (the chat's sockets, chat/live.ts)
 * so it can check again at once instead of at its next periodic check. On PostgreSQL a
 * `NOTIFY members_sessions_ended, '<user id>'` reaches every API process (this one included); on
 * SQLite (one process) the listeners of this process are called. The payload is only a user id:
 * a listener reads the account's standing itself, so a stray notice closes nothing that still stands.
 */
import type { AppContext } from '../kernel/context.js';

export const SESSIONS_ENDED_CHANNEL = 'members_sessions_ended';

type Listener = (userId: string) => void;
const local = new WeakMap<AppContext['db'], Set<Listener>>();

/** Tells every process that `userId`'s sessions (some or all) ended; best effort (a listener also rechecks periodically). */
export async function announceSessionsEnded(ctx: Pick<AppContext, 'db' | 'logger'>, userId: string): Promise<void> {
  try {
    if (ctx.db.dialect === 'postgres') await ctx.db.get('SELECT pg_notify(?, ?)', [SESSIONS_ENDED_CHANNEL, userId]);
    else for (const l of local.get(ctx.db) ?? []) l(userId);
  } catch (err) {
    ctx.logger.warn({ err, userId }, 'sessions-ended notice not sent');
  }
}

/** SQLite: this process's notices (PostgreSQL's travel as NOTIFY; LISTEN on SESSIONS_ENDED_CHANNEL instead). */
export function onSessionsEnded(ctx: Pick<AppContext, 'db'>, listener: Listener): () => void {
  let set = local.get(ctx.db);
  if (!set) {
    set = new Set();
    local.set(ctx.db, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}
