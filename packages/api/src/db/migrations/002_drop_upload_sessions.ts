/** Uploads moved to tus, whose file store keeps each upload's state beside its bytes; the table of the earlier home-made protocol is no longer read or written. */
import type { Migration } from './types.js';

export const dropUploadSessions: Migration = {
  id: 2,
  name: 'drop_upload_sessions',
  sqlite: 'DROP TABLE IF EXISTS upload_sessions;',
  postgres: 'DROP TABLE IF EXISTS upload_sessions;',
};
