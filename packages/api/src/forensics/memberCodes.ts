/**
 * Members' codes against the store (code.ts is the pure part): the code of one member for the
 * playlist they are served, and every live member's code secret for identification. Both come from
 * the member's data key; an erased member has none, so no copy can be traced back to them.
 */

import { usersByIds } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { DataKeyError, dataKeyFor, dataKeyRows, liveDataKeys, masterKeysOf, unwrapKey } from '../shredding/index.js';
import { codeBits, codeSecret } from './code.js';

const keysOf = (ctx: Pick<AppContext, 'env'>) => masterKeysOf(ctx.env.DATA_KEY_SECRET ?? '', ctx.env.DATA_KEY_SECRET_PREVIOUS);

/** The member's variant (0: A, 1: B) for segment positions 0 … count−1 of one video. */
export async function memberVariants(ctx: Pick<AppContext, 'env' | 'db' | 'clock'>, memberId: string, videoId: string, count: number) {
  const keys = keysOf(ctx);
  const row = (await dataKeyRows(ctx.db, [memberId])).get(memberId);
  let dataKey: Buffer;
  if (row?.wrapped_key) dataKey = unwrapKey(keys, memberId, row.wrapped_key);
  else {
    // Every member has a key from their first personal field (their e-mail); a second process creating it first wins.
    try {
      dataKey = await dataKeyFor(ctx.db, keys, memberId, ctx.clock.now());
    } catch (err) {
      const again = (await dataKeyRows(ctx.db, [memberId])).get(memberId);
      if (!again?.wrapped_key) throw err instanceof DataKeyError ? err : new DataKeyError(`no data key for ${memberId}`);
      dataKey = unwrapKey(keys, memberId, again.wrapped_key);
    }
  }
  return codeBits(codeSecret(dataKey), videoId, 0, count);
}

/** Every member with a live data key, with their code secret (erased members have none). */
export async function liveCodeSecrets(ctx: Pick<AppContext, 'env' | 'db'>): Promise<{ memberId: string; secret: Buffer }[]> {
  const keys = keysOf(ctx);
  const live = await liveDataKeys(ctx.db);
  // Accounts only, as the join on users did: a key's subject without an account has no code.
  const members = await usersByIds(
    ctx.db,
    live.map((k) => k.subjectId),
  );
  return live
    .filter((k) => members.has(k.subjectId))
    .map((k) => ({ memberId: k.subjectId, secret: codeSecret(unwrapKey(keys, k.subjectId, k.wrappedKey)) }));
}
