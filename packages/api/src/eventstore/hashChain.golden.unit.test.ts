/**
 * Golden values for the audit hash chain: a fixed sequence of four events whose canonical JSON and
 * chain hashes are written out below, so a change to `canonicalJson` or `eventHash` fails here
 * instead of passing every test that checks the code against itself and breaking every auditor's
 * script (docs/audit.md).
 *
 * The expected strings and hashes were not made by this code: they were derived with Python 3.11
 * from docs/audit.md's definition alone — `json.dumps(v, separators=(",", ":"), ensure_ascii=False)`
 * over dicts whose keys were sorted by `k.encode("utf-16-be")` at every depth, then
 * `hashlib.sha256((prev + body).encode("utf-8")).hexdigest()` from 64 zeros. For events 1–3 that body
 * is also exactly what the doc's 15-line verifier builds with `sort_keys=True`. Event 4 pins the
 * UTF-16 key order the doc specifies, where it differs from Python's code-point order (a key with
 * U+1F600 sorts before U+FF21): the verifier's shortcut holds only for keys of ASCII/BMP characters,
 * as the doc says, and the product's keys are ASCII names.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, chainEvents, eventHash, GENESIS_HASH, type HashableEvent } from './hashChain.js';

/** The events in the order written to the log; member order scrambled on purpose. */
const EVENTS: HashableEvent[] = [
  {
    position: 1,
    streamId: 'payment-p1',
    version: 1,
    type: 'PaymentRequested',
    metadata: { at: '2026-03-01T09:30:00.000Z', actorId: 'u1' },
    data: {
      requestedAt: '2026-03-01T09:30:00.000Z',
      userId: 'u1',
      planType: 'annual',
      amountSats: 500000,
      paymentId: 'p1',
      address: 'bc1qgolden0address',
    },
  },
  {
    type: 'UserRegistered',
    version: 1,
    streamId: 'user-u1',
    position: 2,
    data: {
      userId: 'u1',
      lastName: 'Ångström 日本 🎬',
      firstName: 'Zoë',
      middleName: undefined, // left out, as if never set
      note: 'line1\nline2\t"quoted" \\ back\u0001 end',
      profile: { zeta: true, alpha: null, mixed: [{ b: 2, a: 1 }, 'x', -7, 0, Number.MAX_SAFE_INTEGER], empty: {}, list: [] },
    },
    metadata: { requestId: 'r-1', at: '2026-03-01T09:31:02.500Z', actorId: null },
  },
  {
    metadata: { actorId: 'admin-1', at: '2026-03-02T10:00:00.000Z' },
    data: {
      verifiedBy: 'admin-1',
      txHash: `a${'0'.repeat(62)}1`,
      verifiedAt: '2026-03-02T10:00:00.000Z',
      paymentId: 'p1',
      userId: 'u1',
      planType: 'annual',
      amountSats: 500000,
    },
    type: 'PaymentVerified',
    streamId: 'payment-p1',
    version: 2,
    position: 3,
  },
  {
    position: 4,
    streamId: 'golden-keys',
    version: 1,
    type: 'KeyOrderProbe',
    data: { b: 1, B: 2, a: 3, é: 4, '\uFF21': 5, '\u{1F600}': 6, '10': 7, '9': 8, _: 9, '': 10 },
    metadata: { at: '2026-03-02T10:00:01.000Z', actorId: 'admin-1' },
  },
];

/** body(n) of docs/audit.md, byte for byte (in the second, String.raw keeps the JSON's own backslashes). */
const BODIES = [
  '{"data":{"address":"bc1qgolden0address","amountSats":500000,"paymentId":"p1","planType":"annual","requestedAt":"2026-03-01T09:30:00.000Z","userId":"u1"},"metadata":{"actorId":"u1","at":"2026-03-01T09:30:00.000Z"},"position":1,"stream":"payment-p1","type":"PaymentRequested","version":1}',
  String.raw`{"data":{"firstName":"Zoë","lastName":"Ångström 日本 🎬","note":"line1\nline2\t\"quoted\" \\ back\u0001 end","profile":{"alpha":null,"empty":{},"list":[],"mixed":[{"a":1,"b":2},"x",-7,0,9007199254740991],"zeta":true},"userId":"u1"},"metadata":{"actorId":null,"at":"2026-03-01T09:31:02.500Z","requestId":"r-1"},"position":2,"stream":"user-u1","type":"UserRegistered","version":1}`,
  '{"data":{"amountSats":500000,"paymentId":"p1","planType":"annual","txHash":"a000000000000000000000000000000000000000000000000000000000000001","userId":"u1","verifiedAt":"2026-03-02T10:00:00.000Z","verifiedBy":"admin-1"},"metadata":{"actorId":"admin-1","at":"2026-03-02T10:00:00.000Z"},"position":3,"stream":"payment-p1","type":"PaymentVerified","version":2}',
  '{"data":{"":10,"10":7,"9":8,"B":2,"_":9,"a":3,"b":1,"é":4,"😀":6,"Ａ":5},"metadata":{"actorId":"admin-1","at":"2026-03-02T10:00:01.000Z"},"position":4,"stream":"golden-keys","type":"KeyOrderProbe","version":1}',
];

/** hash(1) … hash(4), each chained onto the one before, hash(0) = 64 zeros. */
const HASHES = [
  '52d1ada946386be6311ca3d99b073bee5541ec0172f4e9ce674a6ae75c75bdf0',
  'cd89ead6d9ff02845f56991dabfb1e53b0684af5fb599eff3529072099948d85',
  '706f4826ead1b5a2b56dbe67d10dec965ec8798830a9ab112160dfd0eb56e40a',
  '3c519af3ed510e1af503b6ddbfb6cfbf28f6c64e0372ef1d4e5595618076bd92',
];

const bodyOf = (e: HashableEvent) =>
  canonicalJson({ type: e.type, data: e.data, metadata: e.metadata, stream: e.streamId, version: e.version, position: e.position });

describe('hash chain golden values (derived independently with Python from docs/audit.md)', () => {
  it('starts from 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
  });

  it.each(EVENTS.map((e, i) => [e.position, e.type, e, BODIES[i]] as const))(
    'event %i (%s): canonical JSON byte for byte',
    (_position, _type, e, body) => {
      expect(bodyOf(e)).toBe(body);
    },
  );

  it('chains the four events to the published hashes', () => {
    const chain: string[] = [];
    let prev = GENESIS_HASH;
    for (const e of EVENTS) {
      prev = eventHash(prev, e);
      chain.push(prev);
    }
    expect(chain).toEqual(HASHES);
  });

  it('chainEvents, the one place every adapter hashes, gives the same hashes for the payment stream', () => {
    // Events 1 and 3 share a stream but not a batch; append 1 onto genesis, then 3 onto hash(2).
    const [requested, , verified] = EVENTS as [HashableEvent, HashableEvent, HashableEvent];
    const at = (e: HashableEvent, headPosition: number, headHash: string) => ({
      streamId: e.streamId,
      baseVersion: e.version - 1,
      headPosition,
      headHash,
      metadata: e.metadata as Record<string, unknown>,
      recordedAt: '2026-03-02T10:00:00.000Z',
    });
    const first = chainEvents(
      [{ type: requested.type, data: requested.data as Record<string, unknown> }],
      at(requested, 0, GENESIS_HASH),
      () => 'e1',
    );
    const third = chainEvents(
      [{ type: verified.type, data: verified.data as Record<string, unknown> }],
      at(verified, 2, HASHES[1] as string),
      () => 'e3',
    );
    expect(first.map((r) => [r.position, r.version, r.prevHash, r.hash])).toEqual([[1, 1, GENESIS_HASH, HASHES[0]]]);
    expect(third.map((r) => [r.position, r.version, r.prevHash, r.hash])).toEqual([[3, 2, HASHES[1], HASHES[2]]]);
  });
});
