import { createHash } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import { ChainDataError, decodeBlock, decodeTx, parseHeader } from './rawBlock.js';

/** Bitcoin's genesis block, byte for byte (its hash and merkle root are published everywhere). */
const GENESIS_HEADER =
  '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c';
const GENESIS_COINBASE =
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';
const GENESIS_HASH = '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f';
const GENESIS_MERKLE = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

/** A signed segwit transaction paying `sats` to a P2WPKH of `key`, spending a made-up outpoint. */
function segwitTx(opts: { sats: bigint; sequence?: number; outputs?: number }) {
  const key = HDKey.fromMasterSeed(new Uint8Array(32).fill(7));
  const priv = key.privateKey as Uint8Array;
  const pub = Uint8Array.from(Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'));
  const spend = p2wpkh(key.publicKey as Uint8Array);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({
    txid: new Uint8Array(32).fill(1),
    index: 0,
    witnessUtxo: { script: spend.script, amount: 10n ** 8n },
    ...(opts.sequence === undefined ? {} : { sequence: opts.sequence }),
  });
  for (let i = 0; i < (opts.outputs ?? 1); i++) tx.addOutput({ script: p2wpkh(pub).script, amount: opts.sats });
  tx.sign(priv);
  tx.finalize();
  return { tx, script: Buffer.from(p2wpkh(pub).script).toString('hex') };
}

describe('raw chain data', () => {
  it('the genesis header hashes to the published block hash and names its merkle root', () => {
    expect(parseHeader(bytes(GENESIS_HEADER))).toEqual({
      hash: GENESIS_HASH,
      prevHash: '0'.repeat(64),
      merkleRoot: GENESIS_MERKLE,
      time: 1231006505,
    });
  });

  it('the genesis block decodes: one coinbase whose id is the merkle root, 50 BTC to its script', () => {
    const block = decodeBlock(bytes(`${GENESIS_HEADER}01${GENESIS_COINBASE}`), GENESIS_HASH);
    expect(block.txs).toHaveLength(1);
    expect(block.txs[0]?.txid).toBe(GENESIS_MERKLE);
    expect(block.txs[0]?.outputs).toEqual([{ script: expect.stringMatching(/^4104678afd.*ac$/), sats: 5_000_000_000 }]);
    expect(block.txs[0]?.signalsRbf).toBe(false);
  });

  it('refuses a block that is not the one asked for, a merkle root that does not cover it, truncated bytes', () => {
    const raw = `${GENESIS_HEADER}01${GENESIS_COINBASE}`;
    expect(() => decodeBlock(bytes(raw), 'ff'.repeat(32))).toThrow(ChainDataError);
    const tampered = raw.replace('00f2052a01000000', '00f2052a02000000');
    expect(() => decodeBlock(bytes(tampered), GENESIS_HASH)).toThrow(/merkle root/);
    expect(() => decodeBlock(bytes(raw.slice(0, -10)))).toThrow(ChainDataError);
    expect(() => decodeBlock(bytes(`${raw}00`))).toThrow(ChainDataError);
  });

  it('a segwit transaction: its id hashes the bytes without witness (as btc-signer computes it), outputs by script', () => {
    const { tx, script } = segwitTx({ sats: 12_345n, outputs: 2 });
    const decoded = decodeTx(tx.extract());
    expect(decoded.txid).toBe(tx.id);
    expect(decoded.outputs).toEqual([
      { script, sats: 12_345 },
      { script, sats: 12_345 },
    ]);
    expect(decoded.spends).toEqual([`${'01'.repeat(32)}:0`]);
  });

  it('BIP125: a sequence below 0xfffffffe signals replaceability; the default final sequence does not', () => {
    expect(decodeTx(segwitTx({ sats: 1000n, sequence: 0xfffffffd }).tx.extract()).signalsRbf).toBe(true);
    expect(decodeTx(segwitTx({ sats: 1000n, sequence: 0xffffffff }).tx.extract()).signalsRbf).toBe(false);
  });

  it('a block of several transactions (odd count: the last id is paired with itself)', () => {
    const txs = [segwitTx({ sats: 1n }).tx, segwitTx({ sats: 2n }).tx, segwitTx({ sats: 3n }).tx];
    const body = Buffer.concat(txs.map((t) => Buffer.from(t.extract())));
    // The header's merkle root is computed by decodeBlock's own rule; check it against a hand fold.
    const ids = txs.map((t) => Buffer.from(t.id, 'hex').reverse());
    const h = (b: Buffer) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
    const root = h(
      Buffer.concat([h(Buffer.concat([ids[0] as Buffer, ids[1] as Buffer])), h(Buffer.concat([ids[2] as Buffer, ids[2] as Buffer]))]),
    );
    const header = Buffer.alloc(80);
    root.copy(header, 36);
    const block = decodeBlock(Buffer.concat([header, Buffer.from([3]), body]));
    expect(block.txs.map((t) => t.txid)).toEqual(txs.map((t) => t.id));
  });
});
