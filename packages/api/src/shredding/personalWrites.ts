/**
 * Erasure and the writes of personal data outside the event log (mail) are exclusive: a mail is
 * written or delivered only while its member still has a data key, and an erasure, once it has
 * destroyed the key, waits for every write or delivery that saw the key before it removes what they
 * left (erasure.service.ts). Without this, a subscriber that had read a registration before the
 * erasure wrote its mail after the erasure had cleaned up, and the erased address stayed.
 *
 * - Writes inside a transaction (`mayWritePersonal`, the mail subscribers' outbox rows): on SQLite the
 *   transaction holds the database's only write lock, so it runs wholly before the erasure's append or
 *   wholly after (and then sees the key gone); on PostgreSQL it also takes the member's shared
 *   advisory lock, which the erasure's `waitForPersonalWrites` takes exclusively after its append.
 * - Deliveries (`whilePersonal`, the mail sender: SMTP or the dev outbox's .eml file) run outside a
 *   write transaction (an SMTP exchange must not hold SQLite's write lock): they are registered in
 *   this process before the key is checked and the erasure waits for them; on PostgreSQL the delivery
 *   also runs in a transaction holding the member's shared advisory lock, so an erasure in another
 *   process waits too. (SQLite has one server process; the CLI works with it stopped.)
 */
import type { Db, Dialect, Queryable } from '../db/types.js';

/** First key of the members' advisory locks (the second is the hash of the member id); other locks use other keys. */
const LOCK_CLASS = 734_004;

/** Whether the member's data key is gone (a tombstone row in `data_keys`). */
export async function isErased(q: Queryable, subjectId: string): Promise<boolean> {
  const row = await q.get<{ wrapped_key: string | null; erased_at: string | null }>(
    'SELECT wrapped_key, erased_at FROM data_keys WHERE subject_id = ?',
    [subjectId],
  );
  return Boolean(row && (row.erased_at || !row.wrapped_key));
}

async function lockShared(dialect: Dialect, tx: Queryable, subjectId: string): Promise<void> {
  if (dialect === 'postgres') await tx.get('SELECT pg_advisory_xact_lock_shared(?, hashtext(?))', [LOCK_CLASS, subjectId]);
}

/**
 * Inside the transaction that will write personal data about `subjectId`: holds off their erasure
 * until that transaction ends and answers whether they still have their key (false: write nothing).
 */
export async function mayWritePersonal(dialect: Dialect, tx: Queryable, subjectId: string): Promise<boolean> {
  await lockShared(dialect, tx, subjectId);
  return !(await isErased(tx, subjectId));
}

const inFlight = new WeakMap<object, Map<string, Set<Promise<unknown>>>>();

function flights(db: Db): Map<string, Set<Promise<unknown>>> {
  let map = inFlight.get(db);
  if (!map) {
    map = new Map();
    inFlight.set(db, map);
  }
  return map;
}

/**
 * Runs `deliver` (which hands personal data to the outside: an SMTP server, a file) only if
 * `subjectId` still has their key, and keeps their erasure waiting until it has finished.
 * Answers `{ erased: true }` without running it otherwise.
 */
export async function whilePersonal<T>(
  db: Db,
  subjectId: string,
  deliver: (q: Queryable) => Promise<T>,
): Promise<{ erased: true } | { erased: false; value: T }> {
  const run = async (q: Queryable) => {
    if (await isErased(q, subjectId)) return { erased: true as const };
    return { erased: false as const, value: await deliver(q) };
  };
  const map = flights(db);
  let set = map.get(subjectId);
  if (!set) {
    set = new Set();
    map.set(subjectId, set);
  }
  // Registered before the key is read: an erasure that starts waiting later sees it.
  const flight =
    db.dialect === 'postgres'
      ? db.transaction(async (tx) => {
          await lockShared('postgres', tx, subjectId);
          return run(tx);
        })
      : run(db);
  set.add(flight);
  try {
    return await flight;
  } finally {
    set.delete(flight);
    if (set.size === 0 && map.get(subjectId) === set) map.delete(subjectId);
  }
}

/**
 * Called by the erasure after the append that destroyed the key committed: resolves once no write or
 * delivery that could still have seen the key is running (in this process, and on PostgreSQL in any).
 */
export async function waitForPersonalWrites(db: Db, subjectId: string): Promise<void> {
  for (;;) {
    const set = flights(db).get(subjectId);
    if (!set || set.size === 0) break;
    await Promise.allSettled([...set]);
  }
  if (db.dialect === 'postgres')
    await db.transaction(async (tx) => {
      await tx.get('SELECT pg_advisory_xact_lock(?, hashtext(?))', [LOCK_CLASS, subjectId]);
    });
}
