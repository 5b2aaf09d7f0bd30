/**
 * Each outbox row names the member it is for (`subject_id`), so a delivery can look up right before
 * sending whether that member has been erased, and an erasure finds every mail about them even when
 * the address was typed differently. Rows queued before this migration have none (they are sent as
 * before; the erasure still finds them by address).
 */
import type { Migration } from './types.js';

const ddl = `ALTER TABLE mail_outbox ADD COLUMN subject_id TEXT;
CREATE INDEX IF NOT EXISTS mail_outbox_subject ON mail_outbox (subject_id);`;

export const mailSubject: Migration = { id: 9, name: 'mail_subject', sqlite: ddl, postgres: ddl };
