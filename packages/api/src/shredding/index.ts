/**
 * Crypto-shredding: every member's personal data is sealed under a data key of their own, and an
 * erasure destroys that key, so their personal fields in the append-only log can never be read again
 * while the hash chain stays whole (docs/privacy.md). Infrastructure: the event store reads through
 * the shredder (context.ts hands it over), every area writing personal data seals it and waits on
 * personal writes, and it imports no area. The files:
 * - dataKeys.ts: the per-member data keys (the `data_keys` table, which this folder owns), wrapped
 *   by the master key DATA_KEY_SECRET; rotation, erasure tombstones, copies;
 * - personalData.ts: which event fields are personal, sealing and opening them, erased placeholders;
 * - shredder.ts: the codec the event store seals and opens events with, and the key's destruction
 *   in `MemberErased`'s append;
 * - personalWrites.ts: writes outside the log (mail) that run exclusive with the member's erasure.
 * Import from this index; the files are its inside.
 */
export {
  copyDataKeys,
  DataKeyError,
  dataKeyFor,
  dataKeyRows,
  erasedSubjects,
  liveDataKeys,
  type MasterKeys,
  masterKeysOf,
  rewrapDataKeys,
  unwrapKey,
  wrappingKids,
} from './dataKeys.js';
export { ERASURE_EVENT, erasedLabel, placeholder } from './personalData.js';
export { mayWritePersonal, waitForPersonalWrites, whilePersonal } from './personalWrites.js';
export { createShredder, type Shredder } from './shredder.js';
