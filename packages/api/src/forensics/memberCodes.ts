/**
 * Members' codes against the store (code.ts is the pure part): the code of one member for the
 * playlist they are served, and every live member's code secret for identification. Both come from
 * the member's data key; an erased member has none, so no copy can be traced back to them.
 */
import type { AppContext } from '../context.js';
import { DataKeyError, dataKeyFor, dataKeyRows, masterKeysOf, unwrapKey } from '../shredding/dataKeys.js';
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
  const rows = await ctx.db.all<{ subject_id: string; wrapped_key: string }>(
    `SELECT d.subject_id, d.wrapped_key FROM data_keys d JOIN users u ON u.id = d.subject_id
      WHERE d.wrapped_key IS NOT NULL AND d.erased_at IS NULL`,
  );
  return rows.map((r) => ({ memberId: r.subject_id, secret: codeSecret(unwrapKey(keys, r.subject_id, r.wrapped_key)) }));
}
