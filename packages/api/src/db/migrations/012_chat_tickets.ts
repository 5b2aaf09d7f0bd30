/**
 * 012: the live chat's WebSocket tickets (chat/tickets.ts). A browser cannot put a bearer token on
 * a WebSocket, so it asks for a ticket (POST /api/chat/ticket) and opens the socket with it. Stored
 * here, not in one process's memory, so any API process can redeem it; only its SHA-256 is kept.
 * Single use (redeeming deletes the row), 60 seconds; expired rows go when the next ticket is issued.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS chat_tickets (
  ticket_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_tickets_expiry ON chat_tickets (expires_at);`;

export const chatTickets: Migration = { id: 12, name: 'chat_tickets', sqlite: ddl, postgres: ddl };
