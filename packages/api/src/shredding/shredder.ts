/**
 * Crypto-shredding at the event store's edge: `seal` runs inside the append transaction (before the
 * hash chain is computed) and encrypts each event's personal fields with its member's data key,
 * creating the key on first use; a `MemberErased` event destroys the key in that same transaction.
 * `open` decodes stored events for every reader (command handlers, projections, subscribers, audit
 * reports, exports): sealed fields are decrypted, and an erased member's fields — sealed or written in
 * clear before encryption existed — read as placeholders (`erased member <short id>`), never an error.
 * The hash chain is verified over the stored form (`AppContext.rawStore`), which never changes.
 */
import type { Queryable } from '../db/types.js';
import type { NewEvent, RecordedEvent } from '../eventstore/types.js';
import { DataKeyError, dataKeyFor, dataKeyRows, destroyDataKey, type MasterKeys, unwrapKey } from './dataKeys.js';
import { ERASURE_EVENT, envelopeOf, erase, personalFieldsIn, seal, subjectOf, unseal } from './personalData.js';

export interface Shredder {
  /** The stored form of `events` (personal fields sealed); destroys keys for `MemberErased`. Call inside the append transaction. */
  seal(tx: Queryable, events: NewEvent[], now: Date): Promise<NewEvent[]>;
  /** The readable form of stored events (decrypted, or placeholders for erased members). */
  open(q: Queryable, events: RecordedEvent[]): Promise<RecordedEvent[]>;
}

type Data = Record<string, unknown>;

export function createShredder(keys: MasterKeys): Shredder {
  return {
    async seal(tx, events, now) {
      const cache = new Map<string, Buffer>();
      const out: NewEvent[] = [];
      for (const e of events) {
        const data = e.data as Data;
        const subject = subjectOf(data);
        if (e.type === ERASURE_EVENT && subject) {
          await destroyDataKey(tx, subject, now);
          cache.delete(subject);
          out.push(e);
          continue;
        }
        if (!subject || personalFieldsIn(e.type, data).length === 0) {
          out.push(e);
          continue;
        }
        let key = cache.get(subject);
        if (!key) {
          key = await dataKeyFor(tx, keys, subject, now);
          cache.set(subject, key);
        }
        out.push({ ...e, data: seal(e.type, data, subject, key) });
      }
      return out;
    },

    async open(q, events) {
      const subjects = new Set<string>();
      for (const e of events) {
        const data = e.data as Data;
        const subject = subjectOf(data);
        if (subject && (envelopeOf(data) || personalFieldsIn(e.type, data).length > 0)) subjects.add(subject);
      }
      if (subjects.size === 0) return events;
      const rows = await dataKeyRows(q, [...subjects]);
      const unwrapped = new Map<string, Buffer>();
      return events.map((e) => {
        const data = e.data as Data;
        const subject = subjectOf(data);
        if (!subject || !subjects.has(subject)) return e;
        const row = rows.get(subject);
        if (row?.erased_at || (row && !row.wrapped_key)) return { ...e, data: erase(e.type, data, subject) };
        const envelope = envelopeOf(data);
        if (!envelope) return e;
        if (!row?.wrapped_key)
          throw new DataKeyError(`event ${e.position} is sealed for ${subject}, whose data key is missing from data_keys`);
        let key = unwrapped.get(subject);
        if (!key) {
          key = unwrapKey(keys, envelope.subject, row.wrapped_key);
          unwrapped.set(subject, key);
        }
        return { ...e, data: unseal(e.type, data, key) };
      });
    },
  };
}
