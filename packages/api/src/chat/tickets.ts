/**
 * WebSocket tickets (migration 011): a browser cannot put a bearer token on a WebSocket, so a
 * signed-in caller asks for a ticket and opens `GET /api/chat/socket?ticket=…` with it. Stored in
 * the database (any process redeems it), only as a SHA-256; single use (redeeming deletes the row
 * in one statement, so two redeemers cannot both win) and valid for 60 seconds. It remembers the
 * session it was asked for (migration 014): the socket lives no longer than that session.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../kernel/context.js';

export const TICKET_TTL_MS = 60_000;

const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

export interface TicketHolder {
  userId: string;
  role: 'member' | 'admin';
  /** The session the ticket was asked for (the socket closes when it ends); none for a token without one. */
  sessionId?: string | undefined;
}

export async function issueTicket(ctx: AppContext, holder: TicketHolder): Promise<{ ticket: string; expiresAt: string }> {
  const now = ctx.clock.now();
  const ticket = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + TICKET_TTL_MS).toISOString();
  await ctx.db.run('DELETE FROM chat_tickets WHERE expires_at <= ?', [now.toISOString()]);
  await ctx.db.run('INSERT INTO chat_tickets (ticket_hash, user_id, role, expires_at, session_id) VALUES (?, ?, ?, ?, ?)', [
    hashOf(ticket),
    holder.userId,
    holder.role,
    expiresAt,
    holder.sessionId ?? null,
  ]);
  return { ticket, expiresAt };
}

/** Who the ticket was issued to, once: a used, unknown or expired ticket answers undefined. */
export async function redeemTicket(ctx: AppContext, ticket: string): Promise<TicketHolder | undefined> {
  if (ticket.length === 0 || ticket.length > 100) return undefined;
  // In a write transaction: SQLite's plain `get` reads through the reader connection.
  const row = await ctx.db.transaction((tx) =>
    tx.get<{ user_id: string; role: string; session_id: string | null }>(
      'DELETE FROM chat_tickets WHERE ticket_hash = ? AND expires_at > ? RETURNING user_id, role, session_id',
      [hashOf(ticket), ctx.clock.now().toISOString()],
    ),
  );
  if (!row) return undefined;
  return { userId: row.user_id, role: row.role === 'admin' ? 'admin' : 'member', ...(row.session_id ? { sessionId: row.session_id } : {}) };
}
