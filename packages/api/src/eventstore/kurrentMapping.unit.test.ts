/** The KurrentDB mapping without a server: revisions, stream states, metadata round trip, foreign events. */
import { NO_STREAM } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { eventHash, GENESIS_HASH } from './hashChain.js';
import { chainOf, fromResolved, streamStateFor, toEventData, versionOf } from './kurrentMapping.js';
import type { RecordedEvent } from './types.js';

const rec = (): RecordedEvent => {
  const base = {
    type: 'PaymentVerified',
    data: { paymentId: 'p1', amountSats: 500000 },
    metadata: { actorId: 'a1', at: '2026-01-01T00:00:00.000Z' },
    streamId: 'payment-p1',
    version: 3,
    position: 17,
  };
  return {
    ...base,
    eventId: '5a0d4b55-4a3f-4a8e-9a3b-0f5f3a1b2c3d',
    recordedAt: '2026-01-01T00:00:01.000Z',
    prevHash: GENESIS_HASH,
    hash: eventHash(GENESIS_HASH, base),
  };
};

describe('KurrentDB mapping', () => {
  it('maps our 1-based versions to 0-based revisions and stream states', () => {
    expect(streamStateFor(1)).toBe(NO_STREAM);
    expect(streamStateFor(2)).toBe(0n);
    expect(streamStateFor(10)).toBe(8n);
    expect(versionOf(0n)).toBe(1);
  });

  it('round-trips an event with its position and hashes in the metadata', () => {
    const e = rec();
    const data = toEventData(e);
    expect(data).toMatchObject({ id: e.eventId, type: e.type, contentType: 'application/json', data: e.data });
    expect(chainOf(data.metadata)).toEqual({ position: 17, prevHash: GENESIS_HASH, hash: e.hash, recordedAt: e.recordedAt });
    const back = fromResolved({
      event: {
        streamId: e.streamId,
        id: e.eventId,
        isJson: true,
        revision: 2n,
        type: e.type,
        created: new Date(),
        data: e.data,
        metadata: data.metadata,
      } as never,
    });
    expect(back).toEqual(e);
    expect(eventHash(GENESIS_HASH, back as RecordedEvent)).toBe(e.hash);
  });

  it('ignores system events and events written by others (no chain in the metadata)', () => {
    const ev = (type: string, metadata: unknown) => ({
      event: { streamId: 's', id: 'x', isJson: true, revision: 0n, type, created: new Date(), data: {}, metadata } as never,
    });
    expect(fromResolved(ev('$metadata', { chain: { position: 1, hash: 'h' } }))).toBeUndefined();
    expect(fromResolved(ev('Foreign', { some: 'thing' }))).toBeUndefined();
    expect(fromResolved({ event: undefined })).toBeUndefined();
  });
});
