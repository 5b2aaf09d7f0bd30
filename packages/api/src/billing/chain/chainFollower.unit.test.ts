/**
 * What a bcoin node cannot show (its mempool refuses a double spend): an RBF replacement, on raw
 * transactions built with btc-signer and served by an in-memory chain source.
 */
import { HDKey } from '@scure/bip32';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { describe, expect, it } from 'vitest';
import type { ChainSource } from './bitcoinRpc.js';
import { chainFollower } from './chainFollower.js';
import { assessPayment } from './chainStatus.js';
import { type DecodedTx, decodeTx } from './rawBlock.js';

const key = HDKey.fromMasterSeed(new Uint8Array(32).fill(9));
const payer = p2wpkh(key.publicKey as Uint8Array);
const shop = p2wpkh(HDKey.fromMasterSeed(new Uint8Array(32).fill(3)).publicKey as Uint8Array);
const SHOP = Buffer.from(shop.script).toString('hex');

/** Spends one made-up coin of 1 BTC: `toShop` satoshis to the shop, the rest back (less `fee`). */
function spend(toShop: bigint, fee: bigint): DecodedTx {
  const tx = new Transaction();
  tx.addInput({
    txid: new Uint8Array(32).fill(5),
    index: 0,
    witnessUtxo: { script: payer.script, amount: 10n ** 8n },
    sequence: 0xfffffffd,
  });
  if (toShop > 0n) tx.addOutput({ script: shop.script, amount: toShop });
  tx.addOutput({ script: payer.script, amount: 10n ** 8n - toShop - fee });
  tx.sign(key.privateKey as Uint8Array);
  tx.finalize();
  return decodeTx(tx.extract());
}

function memorySource(): ChainSource & { pool: DecodedTx[] } {
  const pool: DecodedTx[] = [];
  return {
    pool,
    tipHeight: async () => 0,
    blockHashAt: async () => '00'.repeat(32),
    block: async () => ({ header: { hash: '00'.repeat(32), prevHash: '00'.repeat(32), merkleRoot: '', time: 0 }, txs: [] }),
    prevHash: async () => '00'.repeat(32),
    transaction: async (txid) => pool.find((t) => t.txid === txid),
    mempool: async () => pool.map((t) => t.txid),
  };
}

describe('chain follower: RBF replacement', () => {
  it('a submitted RBF payment replaced by one paying the sender back is conflicted', async () => {
    const source = memorySource();
    const follower = chainFollower(source);
    const original = spend(50_000n, 1_000n);
    const replacement = spend(0n, 5_000n);
    expect(original.signalsRbf).toBe(true);
    const interest = { scripts: new Set<string>(), txids: new Set([original.txid]) };
    const policy = { confirmations: 1, underpaymentTolerancePercent: 0 };
    const watch = { amountSats: 50_000, script: SHOP, txHash: original.txid };

    source.pool.push(original);
    const tip = await follower.sync(interest);
    const first = assessPayment(
      { ...watch, previous: undefined },
      { tipHeight: tip, submitted: follower.seen(original.txid) ?? 'absent', paying: [] },
      policy,
    );
    expect(first).toMatchObject({ status: 'unconfirmed', rbf: true, receivedSats: 50_000 });

    source.pool.splice(0, 1, replacement);
    await follower.sync(interest);
    const after = assessPayment(
      { ...watch, previous: first },
      { tipHeight: tip, submitted: follower.seen(original.txid) ?? 'absent', paying: [] },
      policy,
    );
    expect(after).toMatchObject({ status: 'conflicted', txid: original.txid });
  });

  it('both in view at once (a node that shows the replacement before dropping the original): conflictedBy names it', async () => {
    const source = memorySource();
    const follower = chainFollower(source);
    const original = spend(50_000n, 1_000n);
    const replacement = spend(0n, 5_000n);
    source.pool.push(original, replacement);
    await follower.sync({ scripts: new Set(), txids: new Set([original.txid]) });
    expect(follower.seen(original.txid)).toMatchObject({ where: 'mempool', conflictedBy: replacement.txid });
  });
});
