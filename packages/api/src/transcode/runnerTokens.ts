/**
 * Runner tokens (table `runner_tokens`, migration 013): what a `pnpm cli transcode-runner --server URL`
 * process holds instead of the site's database, secrets and store credentials. Made by `pnpm cli
 * runners token create NAME` and printed once (`rnr_` + 32 random bytes, base64url); only the
 * SHA-256 is stored, so the table leaks nothing usable. A revoked token stays listed (when, and its
 * last use) and is refused at once by every runner route; revoking it also ends the leases of the
 * jobs its runners hold (back to the queue, in the same transaction), so the signed file URLs it was
 * given die with it. Only the database: no context of its own.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types.js';

/** Token names: what `runners token create` accepts and the admin console shows. */
export const RUNNER_TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

const PREFIX = 'rnr_';

export interface RunnerTokenRow {
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** Whether a bearer token has the runner tokens' shape (a member's access token never has). */
export const looksLikeRunnerToken = (token: string) => token.startsWith(PREFIX);

export type CreateResult = { ok: true; token: string } | { ok: false; reason: 'invalid_name' | 'name_taken'; error: string };

/**
 * Makes a token named `name` (a revoked one of that name is replaced); the token is returned once, never stored.
 * Two makers of one name at once: one gets the token, the other `name_taken` (the insert is conditional).
 */
export async function createRunnerToken(db: Queryable, name: string, at: string): Promise<CreateResult> {
  if (!RUNNER_TOKEN_NAME.test(name))
    return {
      ok: false,
      reason: 'invalid_name',
      error: `Invalid token name "${name}": letters, digits, ".", "_" and "-", at most 63, starting with a letter or digit`,
    };
  const taken = { ok: false, reason: 'name_taken', error: `A runner token named "${name}" exists already (revoke it first)` } as const;
  const existing = await db.get<RunnerTokenRow>('SELECT name, revoked_at FROM runner_tokens WHERE name = ?', [name]);
  if (existing && !existing.revoked_at) return taken;
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  if (existing) await db.run('DELETE FROM runner_tokens WHERE name = ? AND revoked_at IS NOT NULL', [name]);
  const inserted = await db.run('INSERT INTO runner_tokens (name, token_hash, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [
    name,
    hashOf(token),
    at,
  ]);
  return inserted.changes === 1 ? { ok: true, token } : taken;
}

/**
 * Revokes the token named `name` and puts the jobs its runners hold back in the queue (their
 * workers are `{name}/{runner id}`, remoteRunners.service.ts); false when there is no such live token.
 */
export async function revokeRunnerToken(db: Db, name: string, at: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const revoked = await tx.run('UPDATE runner_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL', [at, name]);
    if (revoked.changes !== 1) return false;
    const prefix = `${name}/`;
    await tx.run(
      `UPDATE transcode_jobs SET state = 'queued', worker = NULL, lease_expires_at = NULL, updated_at = ?
       WHERE state = 'running' AND substr(worker, 1, ?) = ?`,
      [at, prefix.length, prefix],
    );
    return true;
  });
}

/** Whether a token of that name is live (not revoked): a runner file URL names the token it was given to. */
export async function runnerTokenLive(db: Queryable, name: string): Promise<boolean> {
  return Boolean(await db.get('SELECT 1 AS live FROM runner_tokens WHERE name = ? AND revoked_at IS NULL', [name]));
}

export function listRunnerTokens(db: Queryable): Promise<RunnerTokenRow[]> {
  return db.all<RunnerTokenRow>('SELECT name, created_at, last_used_at, revoked_at FROM runner_tokens ORDER BY name');
}

/** The name of the live token `token` is, recording its use at `at`; undefined for a wrong or revoked token. */
export async function runnerTokenName(db: Queryable, token: string, at: string): Promise<string | undefined> {
  if (!looksLikeRunnerToken(token)) return undefined;
  const row = await db.get<{ name: string }>('SELECT name FROM runner_tokens WHERE token_hash = ? AND revoked_at IS NULL', [hashOf(token)]);
  if (!row) return undefined;
  await db.run('UPDATE runner_tokens SET last_used_at = ? WHERE name = ?', [at, row.name]);
  return row.name;
}
