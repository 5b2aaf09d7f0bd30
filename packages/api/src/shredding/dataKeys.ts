/**
 * Per-member data keys and the master key that wraps them (crypto-shredding).
 * - A data key is 32 random bytes (AES-256), one per member ("subject"), created on the first
 *   personal field written for them, stored only wrapped in `data_keys` (db/migrations/005).
 * - The wrapping key is HKDF-SHA256 of `DATA_KEY_SECRET`; a wrapped key is
 *   `v1.<kid>.<iv>.<ciphertext+tag>` (base64url), AES-256-GCM with the subject id as associated data,
 *   so a row copied to another member does not unwrap. `kid` names the master key (first 8 hex of
 *   SHA-256 of the wrapping key), so `keys rotate` and a server mid-rotation know which one to use.
 * - Erasure sets `wrapped_key` to NULL and `erased_at`: the key is gone, the row stays as a
 *   tombstone saying so (read paths then show placeholders, also for fields written in clear before
 *   encryption existed).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/types.js';

export interface MasterKey {
  kid: string;
  key: Buffer;
}

/** Derives the wrapping key from a secret (≥ 32 characters, checked by env.ts). */
export function masterKeyOf(secret: string): MasterKey {
  const key = Buffer.from(hkdfSync('sha256', secret, 'members-data-keys', 'data-key-wrap v1', 32));
  return { kid: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
}

/** The master keys a process may unwrap with: the current one first, then the previous one during a rotation. */
export interface MasterKeys {
  current: MasterKey;
  previous?: MasterKey | undefined;
}

export function masterKeysOf(secret: string, previousSecret?: string): MasterKeys {
  return { current: masterKeyOf(secret), previous: previousSecret ? masterKeyOf(previousSecret) : undefined };
}

export class DataKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataKeyError';
  }
}

export function wrapKey(master: MasterKey, subjectId: string, dataKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', master.key, iv);
  cipher.setAAD(Buffer.from(subjectId, 'utf8'));
  const ct = Buffer.concat([cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
  return `v1.${master.kid}.${iv.toString('base64url')}.${ct.toString('base64url')}`;
}

export function wrappedKid(wrapped: string): string | undefined {
  const parts = wrapped.split('.');
  return parts.length === 4 && parts[0] === 'v1' ? parts[1] : undefined;
}

export function unwrapKey(keys: MasterKeys, subjectId: string, wrapped: string): Buffer {
  const [v, kid, iv, ct] = wrapped.split('.');
  const master = [keys.current, keys.previous].find((k) => k && k.kid === kid);
  if (v !== 'v1' || !iv || !ct) throw new DataKeyError(`data key of ${subjectId} is not in a known format`);
  if (!master)
    throw new DataKeyError(
      `data key of ${subjectId} is wrapped by master key ${kid}, not by this DATA_KEY_SECRET (${keys.current.kid}); set the right DATA_KEY_SECRET (or DATA_KEY_SECRET_PREVIOUS during a rotation)`,
    );
  const raw = Buffer.from(ct, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', master.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(subjectId, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]);
  } catch {
    throw new DataKeyError(`data key of ${subjectId} does not unwrap (tampered row or wrong DATA_KEY_SECRET)`);
  }
}

export interface DataKeyRow {
  subject_id: string;
  wrapped_key: string | null;
  created_at: string;
  erased_at: string | null;
}

/** The rows of these subjects (a missing subject has never had personal data encrypted). */
export async function dataKeyRows(q: Queryable, subjectIds: string[]): Promise<Map<string, DataKeyRow>> {
  const out = new Map<string, DataKeyRow>();
  const unique = [...new Set(subjectIds)];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const rows = await q.all<DataKeyRow>(
      `SELECT subject_id, wrapped_key, created_at, erased_at FROM data_keys WHERE subject_id IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
    );
    for (const r of rows) out.set(r.subject_id, r);
  }
  return out;
}

/**
 * The subject's data key, created (and stored wrapped) when it has none. Runs inside the append
 * transaction, which holds the append lock, so two processes never create two keys for one member.
 * Throws for an erased subject: nothing personal may be written for them again.
 */
export async function dataKeyFor(q: Queryable, keys: MasterKeys, subjectId: string, now: Date): Promise<Buffer> {
  const row = (await dataKeyRows(q, [subjectId])).get(subjectId);
  if (row?.erased_at || (row && !row.wrapped_key)) throw new DataKeyError(`member ${subjectId} has been erased`);
  if (row?.wrapped_key) return unwrapKey(keys, subjectId, row.wrapped_key);
  const key = randomBytes(32);
  await q.run('INSERT INTO data_keys (subject_id, wrapped_key, created_at) VALUES (?, ?, ?)', [
    subjectId,
    wrapKey(keys.current, subjectId, key),
    now.toISOString(),
  ]);
  return key;
}

/** Destroys the key (idempotent); a subject without a key gets a tombstone so clear legacy fields read as erased too. */
export async function destroyDataKey(q: Queryable, subjectId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await q.run(
    `INSERT INTO data_keys (subject_id, wrapped_key, created_at, erased_at) VALUES (?, NULL, ?, ?)
     ON CONFLICT (subject_id) DO UPDATE SET wrapped_key = NULL, erased_at = COALESCE(data_keys.erased_at, excluded.erased_at)`,
    [subjectId, at, at],
  );
}

/** Ids of every erased member (the list to keep beside backups, see README "Privacy"). */
export async function erasedSubjects(q: Queryable): Promise<{ subjectId: string; erasedAt: string }[]> {
  const rows = await q.all<{ subject_id: string; erased_at: string }>(
    'SELECT subject_id, erased_at FROM data_keys WHERE erased_at IS NOT NULL ORDER BY erased_at, subject_id',
  );
  return rows.map((r) => ({ subjectId: r.subject_id, erasedAt: r.erased_at }));
}

/** Re-wraps every live key whose wrapping is not the current master key; answers how many. */
export async function rewrapDataKeys(q: Queryable, keys: MasterKeys): Promise<{ rewrapped: number; alreadyCurrent: number }> {
  const rows = await q.all<DataKeyRow>(
    'SELECT subject_id, wrapped_key, created_at, erased_at FROM data_keys WHERE wrapped_key IS NOT NULL',
  );
  let rewrapped = 0;
  let alreadyCurrent = 0;
  for (const r of rows) {
    const wrapped = r.wrapped_key as string;
    if (wrappedKid(wrapped) === keys.current.kid) {
      alreadyCurrent++;
      continue;
    }
    const key = unwrapKey(keys, r.subject_id, wrapped);
    await q.run('UPDATE data_keys SET wrapped_key = ? WHERE subject_id = ? AND wrapped_key = ?', [
      wrapKey(keys.current, r.subject_id, key),
      r.subject_id,
      wrapped,
    ]);
    rewrapped++;
  }
  return { rewrapped, alreadyCurrent };
}

/** Every subject's live key, wrapped (erased subjects have none): for readers that need them all (forensics' code secrets). */
export async function liveDataKeys(q: Queryable): Promise<{ subjectId: string; wrappedKey: string }[]> {
  const rows = await q.all<{ subject_id: string; wrapped_key: string }>(
    'SELECT subject_id, wrapped_key FROM data_keys WHERE wrapped_key IS NOT NULL AND erased_at IS NULL ORDER BY subject_id',
  );
  return rows.map((r) => ({ subjectId: r.subject_id, wrappedKey: r.wrapped_key }));
}

/** The master key ids wrapping the store's data keys, each once (a restore checks it can open them). */
export async function wrappingKids(q: Queryable): Promise<string[]> {
  const rows = await q.all<{ wrapped_key: string }>('SELECT wrapped_key FROM data_keys WHERE wrapped_key IS NOT NULL');
  return [...new Set(rows.map((r) => wrappedKid(r.wrapped_key)).filter((kid): kid is string => kid !== undefined))].sort();
}

/**
 * Copies every data-key row of `from` into `to` (a store copy: same subjects, same wrapping), a
 * later copy of a row replacing its key and erasure time; answers how many rows.
 */
export async function copyDataKeys(from: Queryable, to: Db): Promise<number> {
  const rows = await from.all<DataKeyRow>('SELECT subject_id, wrapped_key, created_at, erased_at FROM data_keys ORDER BY subject_id');
  await to.transaction(async (tx) => {
    for (const r of rows)
      await tx.run(
        `INSERT INTO data_keys (subject_id, wrapped_key, created_at, erased_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (subject_id) DO UPDATE SET wrapped_key = excluded.wrapped_key, erased_at = excluded.erased_at`,
        [r.subject_id, r.wrapped_key, r.created_at, r.erased_at],
      );
  });
  return rows.length;
}
