/**
 * Follows the best chain and the mempool through a `ChainSource`, keeping only what concerns the
 * payments being watched: transactions paying a watched output script or carrying a watched id,
 * where each one is (block and height, or the mempool), and any other transaction spending the same
 * inputs (a replacement, a double spend). A reorg is found by comparing the followed blocks with the
 * node's hashes at their heights; the blocks that left are dropped with what was found in them.
 * Blocks before `lookbackBlocks` below the tip when it starts are not read.
 */
import type { ChainSource } from './bitcoinRpc.js';
import type { SeenTx } from './chainStatus.js';
import type { DecodedTx } from './rawBlock.js';

export interface Interest {
  /** Output scripts (hex) of requests with an address of their own. */
  scripts: ReadonlySet<string>;
  /** Submitted transaction ids. */
  txids: ReadonlySet<string>;
}

interface Followed {
  height: number;
  hash: string;
}

/** One day of blocks: a hash submitted for an older transaction is `not_found` (docs/billing.md). */
export const DEFAULT_LOOKBACK_BLOCKS = 144;

export function chainFollower(source: ChainSource, lookbackBlocks = DEFAULT_LOOKBACK_BLOCKS) {
  let blocks: Followed[] = [];
  let tip = -1;
  const inBlocks = new Map<string, { tx: DecodedTx; blockHash: string; height: number }>();
  const inMempool = new Map<string, DecodedTx>();
  const mempoolIgnored = new Set<string>();
  /** outpoint → the watched transaction spending it. */
  const spenders = new Map<string, string>();
  /** watched txid → the other transaction spending one of its inputs. */
  const conflicts = new Map<string, string>();
  const searched = new Set<string>();
  /** The scripts of the last pass: a new one (a request opened meanwhile) makes the mempool be read again. */
  let knownScripts = new Set<string>();

  const relevant = (tx: DecodedTx, interest: Interest) =>
    interest.txids.has(tx.txid) || tx.outputs.some((o) => interest.scripts.has(o.script));

  function noteSpends(tx: DecodedTx, watched: boolean) {
    for (const outpoint of tx.spends) {
      const spender = spenders.get(outpoint);
      if (spender && spender !== tx.txid) conflicts.set(spender, tx.txid);
      if (watched && !spender) spenders.set(outpoint, tx.txid);
    }
  }

  async function readBlock(height: number, hash: string, interest: Interest, onlyTxid?: string): Promise<boolean> {
    const block = await source.block(hash);
    let hit = false;
    for (const tx of block.txs) {
      if (onlyTxid ? tx.txid !== onlyTxid : !relevant(tx, interest)) {
        if (!onlyTxid) noteSpends(tx, false);
        continue;
      }
      hit = true;
      inBlocks.set(tx.txid, { tx, blockHash: hash, height });
      noteSpends(tx, true);
    }
    return hit;
  }

  /** Pops followed blocks the node no longer has at their height. */
  async function unwindReorg(): Promise<void> {
    while (blocks.length > 0) {
      const last = blocks[blocks.length - 1] as Followed;
      if (last.height <= tip && (await source.blockHashAt(last.height)) === last.hash) return;
      blocks.pop();
      for (const [txid, found] of inBlocks) if (found.blockHash === last.hash) inBlocks.delete(txid);
    }
  }

  async function followBlocks(interest: Interest): Promise<void> {
    const from = blocks.length > 0 ? (blocks[blocks.length - 1] as Followed).height + 1 : Math.max(0, tip - lookbackBlocks + 1);
    for (let height = from; height <= tip; height++) {
      const hash = await source.blockHashAt(height);
      const parent = blocks[blocks.length - 1];
      // A reorg while reading: the next pass unwinds it.
      if (parent && (await source.prevHash(hash)) !== parent.hash) return;
      await readBlock(height, hash, interest);
      blocks.push({ height, hash });
    }
    if (blocks.length > lookbackBlocks) blocks = blocks.slice(-lookbackBlocks);
  }

  async function followMempool(interest: Interest): Promise<void> {
    if ([...interest.scripts].some((s) => !knownScripts.has(s))) mempoolIgnored.clear();
    knownScripts = new Set(interest.scripts);
    const ids = new Set(await source.mempool());
    for (const txid of [...inMempool.keys()]) if (!ids.has(txid)) inMempool.delete(txid);
    for (const txid of [...mempoolIgnored]) if (!ids.has(txid)) mempoolIgnored.delete(txid);
    for (const txid of ids) {
      if (inMempool.has(txid) || inBlocks.has(txid)) continue;
      // A hash submitted after its transaction was passed over is read again.
      if (mempoolIgnored.has(txid) && !interest.txids.has(txid)) continue;
      const tx = await source.transaction(txid);
      if (!tx) continue;
      const watched = relevant(tx, interest);
      noteSpends(tx, watched);
      if (watched) {
        inMempool.set(txid, tx);
        mempoolIgnored.delete(txid);
      } else mempoolIgnored.add(txid);
    }
  }

  /** A submitted transaction the node knows but the followed blocks did not show: looked for once in them. */
  async function searchOlder(interest: Interest): Promise<void> {
    for (const txid of interest.txids) {
      if (inBlocks.has(txid) || inMempool.has(txid) || searched.has(txid)) continue;
      searched.add(txid);
      if (!(await source.transaction(txid))) continue;
      for (const b of [...blocks].reverse()) if (await readBlock(b.height, b.hash, interest, txid)) break;
    }
  }

  return {
    /** Brings the view up to the node's tip and mempool; answers the tip height. */
    async sync(interest: Interest): Promise<number> {
      tip = await source.tipHeight();
      await unwindReorg();
      await followBlocks(interest);
      await followMempool(interest);
      await searchOlder(interest);
      return tip;
    },
    /** Where a transaction is now, or undefined when it is neither in the followed chain nor the mempool. */
    seen(txid: string): SeenTx | undefined {
      const conflictedBy = conflicts.get(txid);
      const extra = conflictedBy ? { conflictedBy } : {};
      const found = inBlocks.get(txid);
      if (found) return { tx: found.tx, where: { blockHash: found.blockHash, height: found.height }, ...extra };
      const pooled = inMempool.get(txid);
      return pooled ? { tx: pooled, where: 'mempool', ...extra } : undefined;
    },
    /** Every transaction seen paying the script. */
    paying(script: string): SeenTx[] {
      const ids = new Set<string>();
      for (const [txid, f] of inBlocks) if (f.tx.outputs.some((o) => o.script === script)) ids.add(txid);
      for (const [txid, tx] of inMempool) if (tx.outputs.some((o) => o.script === script)) ids.add(txid);
      return [...ids].map((id) => this.seen(id) as SeenTx);
    },
    get tipHeight() {
      return tip;
    },
  };
}

export type ChainFollower = ReturnType<typeof chainFollower>;
