/**
 * Consensus-encoded Bitcoin data decoded and checked here, never taken from a node's JSON: a
 * transaction's id is the double SHA-256 of its serialization without witness, a block's header
 * hashes to the block's id and commits to its transactions through the merkle root. Outputs are
 * read by `@scure/btc-signer`'s raw transaction coder; the lengths that split a raw block into its
 * transactions are read here (80-byte header, CompactSize count, then each transaction).
 */
import { createHash } from 'node:crypto';
import { RawTx } from '@scure/btc-signer';

/** Raw bytes that are not what they claim to be (a truncated block, a hash that does not match). */
export class ChainDataError extends Error {}

export interface TxOutput {
  /** Output script, hex: what a payment is compared by (address strings differ between nodes). */
  script: string;
  sats: number;
}

export interface DecodedTx {
  /** Display order (byte-reversed), as explorers and `getrawtransaction` spell it. */
  txid: string;
  outputs: TxOutput[];
  /** BIP125: some input's sequence is below 0xfffffffe, so the sender may replace it while unconfirmed. */
  signalsRbf: boolean;
  /** The outpoints it spends (`txid:vout`, display order). */
  spends: string[];
}

export interface BlockHeader {
  hash: string;
  prevHash: string;
  merkleRoot: string;
  /** Seconds since the epoch, as the miner wrote it. */
  time: number;
}

export interface DecodedBlock {
  header: BlockHeader;
  txs: DecodedTx[];
}

const sha256d = (bytes: Uint8Array): Buffer => createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest();
/** Internal byte order → display order. */
const display = (bytes: Uint8Array): string => Buffer.from(bytes).reverse().toString('hex');

/** Parses an 80-byte block header and computes its hash. */
export function parseHeader(raw: Uint8Array): BlockHeader {
  if (raw.length !== 80) throw new ChainDataError(`a block header is 80 bytes, got ${raw.length}`);
  const view = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  return {
    hash: display(sha256d(raw)),
    prevHash: display(raw.subarray(4, 36)),
    merkleRoot: display(raw.subarray(36, 68)),
    time: view.readUInt32LE(68),
  };
}

/** A cursor over raw bytes that refuses to read past the end. */
class Reader {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }
  skip(n: number): void {
    if (n < 0 || this.pos + n > this.bytes.length) throw new ChainDataError('raw data ends early');
    this.pos += n;
  }
  byte(): number {
    this.skip(1);
    return this.bytes[this.pos - 1] as number;
  }
  /** CompactSize (Bitcoin's varint). */
  varint(): number {
    const first = this.byte();
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    this.skip(size);
    let value = 0;
    for (let i = size - 1; i >= 0; i--) value = value * 256 + (this.bytes[this.pos - size + i] as number);
    if (!Number.isSafeInteger(value)) throw new ChainDataError('CompactSize out of range');
    return value;
  }
}

interface TxSpan {
  /** The serialization without witness (what the txid hashes). */
  stripped: Uint8Array;
  end: number;
}

/** Finds where the transaction starting at `start` ends, and its bytes without witness. */
function spanOfTx(bytes: Uint8Array, start: number): TxSpan {
  const r = new Reader(bytes, start);
  r.skip(4); // version
  const segwit = bytes[r.pos] === 0 && bytes[r.pos + 1] === 1;
  if (segwit) r.skip(2);
  const bodyStart = r.pos;
  const inputs = r.varint();
  for (let i = 0; i < inputs; i++) {
    r.skip(36);
    r.skip(r.varint());
    r.skip(4);
  }
  const outputs = r.varint();
  for (let i = 0; i < outputs; i++) {
    r.skip(8);
    r.skip(r.varint());
  }
  const bodyEnd = r.pos;
  if (segwit)
    for (let i = 0; i < inputs; i++) {
      const items = r.varint();
      for (let j = 0; j < items; j++) r.skip(r.varint());
    }
  r.skip(4); // lock time
  const stripped = Buffer.concat([bytes.subarray(start, start + 4), bytes.subarray(bodyStart, bodyEnd), bytes.subarray(r.pos - 4, r.pos)]);
  return { stripped, end: r.pos };
}

function decodeSpan(bytes: Uint8Array, start: number, span: TxSpan): { tx: DecodedTx; id: Buffer } {
  let raw: ReturnType<typeof RawTx.decode>;
  try {
    raw = RawTx.decode(bytes.subarray(start, span.end));
  } catch (err) {
    throw new ChainDataError(`not a transaction: ${(err as Error).message}`);
  }
  const id = sha256d(span.stripped);
  return {
    id,
    tx: {
      txid: display(id),
      outputs: raw.outputs.map((o) => ({ script: Buffer.from(o.script).toString('hex'), sats: Number(o.amount) })),
      signalsRbf: raw.inputs.some((i) => i.sequence < 0xfffffffe),
      spends: raw.inputs.map((i) => `${display(i.txid)}:${i.index}`),
    },
  };
}

/**
 * Decodes one raw transaction (`getrawtransaction TXID false`).
 * @example decodeTx(Buffer.from(hex, 'hex')).txid // the id a node answers for it
 */
export function decodeTx(bytes: Uint8Array): DecodedTx {
  const span = spanOfTx(bytes, 0);
  if (span.end !== bytes.length) throw new ChainDataError('bytes follow the transaction');
  return decodeSpan(bytes, 0, span).tx;
}

/** The merkle root (internal order) over transaction ids (internal order), Bitcoin's way: an odd level repeats its last hash. */
export function merkleRoot(ids: Uint8Array[]): Buffer {
  if (ids.length === 0) throw new ChainDataError('a block has at least one transaction');
  let level = ids.map((id): Buffer => Buffer.from(id));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Buffer;
      next.push(sha256d(Buffer.concat([left, level[i + 1] ?? left])));
    }
    level = next;
  }
  return level[0] as Buffer;
}

/**
 * Decodes a raw block (`getblock HASH 0`) and checks it: its header hashes to `expectedHash` (when
 * given) and its merkle root covers exactly the transactions that follow.
 */
export function decodeBlock(bytes: Uint8Array, expectedHash?: string): DecodedBlock {
  if (bytes.length < 81) throw new ChainDataError('a block is at least 81 bytes');
  const header = parseHeader(bytes.subarray(0, 80));
  if (expectedHash !== undefined && header.hash !== expectedHash)
    throw new ChainDataError(`the block's header hashes to ${header.hash}, not the ${expectedHash} asked for`);
  const r = new Reader(bytes, 80);
  const count = r.varint();
  const txs: DecodedTx[] = [];
  const ids: Buffer[] = [];
  let pos = r.pos;
  for (let i = 0; i < count; i++) {
    const span = spanOfTx(bytes, pos);
    const { tx, id } = decodeSpan(bytes, pos, span);
    txs.push(tx);
    ids.push(id);
    pos = span.end;
  }
  if (pos !== bytes.length) throw new ChainDataError('bytes follow the last transaction of the block');
  const root = display(merkleRoot(ids));
  if (root !== header.merkleRoot)
    throw new ChainDataError(`the block's merkle root ${header.merkleRoot} does not cover its transactions (${root})`);
  return { header, txs };
}
