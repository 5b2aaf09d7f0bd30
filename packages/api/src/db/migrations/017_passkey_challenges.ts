/**
 * 017: the challenges of passkey ceremonies under way (identity/passkeys.ts, issue 42): single-use,
 * a few minutes long, churn the permanent log should not hold. The passkeys themselves are events
 * (PasskeyRegistered...) and their read model.
 */
import type { Migration } from './types.js';

const ddl = `CREATE TABLE IF NOT EXISTS passkey_challenges (
  id TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  user_id TEXT,
  challenge TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passkey_challenges_expiry ON passkey_challenges (expires_at);`;

export const passkeyChallenges: Migration = { id: 17, name: 'passkey_challenges', sqlite: ddl, postgres: ddl };
