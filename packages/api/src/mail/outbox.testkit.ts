/** Test-only: what the dev outbox holds for an address. */
import type { RunningServer } from '../wiring/server.js';
import type { OutboxRow } from './outbox.js';

/** The mails queued for `email`, oldest first, once the mail subscribers have caught up. */
export async function mailsTo(server: Pick<RunningServer, 'ctx' | 'subscribers'>, email: string): Promise<OutboxRow[]> {
  await server.subscribers.drain();
  return server.ctx.db.all<OutboxRow>('SELECT * FROM mail_outbox WHERE to_address = ? ORDER BY created_at, key', [email]);
}
