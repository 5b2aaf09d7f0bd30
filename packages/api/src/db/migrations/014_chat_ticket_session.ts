/**
 * 014: a chat WebSocket ticket remembers the session it was issued to (chat/tickets.ts), so an open
 * socket is closed when that session ends (logout, "sign out other devices", password change).
 */
import type { Migration } from './types.js';

const ddl = 'ALTER TABLE chat_tickets ADD COLUMN session_id TEXT';

export const chatTicketSession: Migration = { id: 14, name: 'chat_ticket_session', sqlite: ddl, postgres: ddl };
