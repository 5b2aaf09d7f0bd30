/**
 * 006: what a member sees in their list of signed-in sessions (account settings): the browser's
 * user agent when the session started and when it last issued a token (login or refresh). No IP
 * address is kept: the list is for recognising one's own devices, and an address is personal data
 * we do not need for that. Sessions written before this migration show no device.
 */
import type { Migration } from './types.js';

const ddl = `ALTER TABLE refresh_sessions ADD COLUMN user_agent TEXT;
ALTER TABLE refresh_sessions ADD COLUMN last_used_at TEXT;
CREATE INDEX refresh_sessions_user ON refresh_sessions (user_id);`;

export const sessionDevices: Migration = { id: 6, name: 'session_devices', sqlite: ddl, postgres: ddl };
