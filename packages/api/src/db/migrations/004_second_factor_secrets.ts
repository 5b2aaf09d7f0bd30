/**
 * Encrypted TOTP secrets and the last accepted time step (identity/secondFactors.ts): outside the
 * event log, so removing a factor really deletes its secret and a key rotation can re-encrypt rows;
 * the conditional UPDATE of `last_used_step` makes a code single-use across processes.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS second_factor_secrets (
  user_id TEXT PRIMARY KEY,
  enrolment_id TEXT NOT NULL,
  secret_ciphertext TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_step INTEGER NOT NULL DEFAULT 0
);`;

export const secondFactorSecrets: Migration = { id: 4, name: 'second_factor_secrets', sqlite: ddl, postgres: ddl };
