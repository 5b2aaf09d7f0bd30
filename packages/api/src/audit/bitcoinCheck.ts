/**
 * `audit bitcoin-check`: every verified payment whose verification kept the chain's evidence is
 * re-checked against a Bitcoin node of the auditor's choosing, independently of the site's read
 * models: the block the evidence names decodes (its merkle root covers its transactions) and holds
 * the transaction, the block is the node's best chain at the recorded height, and the transaction
 * pays the payment's address (compared by output script) at least the price — or the admin's
 * override says why not. Payments verified without evidence (no node then) are counted, not judged.
 */
import { type ChainSource, outputScriptOf } from '../billing/index.js';
import type { RecordedEvent } from '../eventstore/types.js';

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';

export interface VerifiedEvidence {
  paymentId: string;
  position: number;
  amountSats: number;
  address: string | null;
  txid: string;
  outputIndex: number | null;
  receivedSats: number;
  blockHash: string | null;
  blockHeight: number | null;
  override: { reason: string; chainStatus: string } | null;
}

export interface BitcoinCheckRow {
  paymentId: string;
  txid: string;
  ok: boolean;
  /** What holds ("block 812 abc…, pays 500000 sats") or what does not. */
  detail: string;
}

/** Replays the log: the verified payments with evidence (and the address each was asked to), and those without. */
export async function verifiedEvidence(
  events: AsyncIterable<RecordedEvent>,
  fixedAddress: string | undefined,
): Promise<{ evidenced: VerifiedEvidence[]; withoutEvidence: string[] }> {
  const addresses = new Map<string, string>();
  const evidenced: VerifiedEvidence[] = [];
  const withoutEvidence: string[] = [];
  for await (const e of events) {
    const d = e.data as Record<string, unknown>;
    const paymentId = String(d.paymentId);
    if ((e.type === 'PaymentRequested' || e.type === 'PaymentSubmitted') && typeof d.address === 'string')
      addresses.set(paymentId, d.address);
    if (e.type !== 'PaymentVerified') continue;
    const ev = d.evidence as
      | { txid: string; outputIndex: number | null; receivedSats: number; blockHash: string | null; blockHeight: number | null }
      | undefined;
    if (!ev) {
      withoutEvidence.push(paymentId);
      continue;
    }
    const override = d.override as { reason: string; chainStatus: string } | undefined;
    evidenced.push({
      paymentId,
      position: e.position,
      amountSats: Number(d.amountSats),
      // Submitted without a request in fixed-address mode: the site's one address.
      address: addresses.get(paymentId) ?? fixedAddress ?? null,
      txid: ev.txid,
      outputIndex: ev.outputIndex,
      receivedSats: ev.receivedSats,
      blockHash: ev.blockHash,
      blockHeight: ev.blockHeight,
      override: override ?? null,
    });
  }
  return { evidenced, withoutEvidence };
}

async function checkOne(p: VerifiedEvidence, source: ChainSource, network: BitcoinNetwork): Promise<BitcoinCheckRow> {
  const fail = (detail: string): BitcoinCheckRow => ({ paymentId: p.paymentId, txid: p.txid, ok: false, detail });
  if (!p.blockHash || p.blockHeight === null) return fail('verified from an unconfirmed transaction: no block to check');
  const script = p.address ? outputScriptOf(p.address, network) : undefined;
  if (!script) return fail(`no ${network} address recorded for the payment (${p.address ?? 'none'})`);
  let best: string;
  try {
    best = await source.blockHashAt(p.blockHeight);
  } catch (err) {
    return fail(`the node has no block at height ${p.blockHeight} (${(err as Error).message})`);
  }
  if (best !== p.blockHash) return fail(`block ${p.blockHash} is not in the node's best chain (height ${p.blockHeight} is ${best})`);
  const block = await source.block(p.blockHash);
  const tx = block.txs.find((t) => t.txid === p.txid);
  if (!tx) return fail(`transaction ${p.txid} is not in block ${p.blockHash}`);
  if (p.outputIndex !== null && tx.outputs[p.outputIndex]?.script !== script)
    return fail(`output ${p.outputIndex} of ${p.txid} does not pay ${p.address}`);
  const paid = tx.outputs.filter((o) => o.script === script).reduce((sum, o) => sum + o.sats, 0);
  if (paid === 0) return fail(`${p.txid} pays nothing to ${p.address}`);
  const where = `block ${p.blockHeight} ${p.blockHash}, pays ${paid} sats to ${p.address}`;
  if (paid < p.amountSats) {
    if (!p.override) return fail(`${where}: less than the ${p.amountSats} sats asked, and no override`);
    return {
      paymentId: p.paymentId,
      txid: p.txid,
      ok: true,
      detail: `${where} of ${p.amountSats} asked; overridden: ${p.override.reason}`,
    };
  }
  return { paymentId: p.paymentId, txid: p.txid, ok: true, detail: where };
}

/** Checks each payment against the node, in log order. */
export async function bitcoinCheck(payments: VerifiedEvidence[], source: ChainSource, network: BitcoinNetwork): Promise<BitcoinCheckRow[]> {
  const rows: BitcoinCheckRow[] = [];
  for (const p of payments) rows.push(await checkOne(p, source, network));
  return rows;
}

/** The report's lines and how many payments do not hold. */
export function describeBitcoinCheck(rows: BitcoinCheckRow[], withoutEvidence: string[]): { lines: string[]; failed: number } {
  const failed = rows.filter((r) => !r.ok).length;
  const lines = rows.map((r) => `${r.ok ? 'ok    ' : 'FAILED'} ${r.paymentId} ${r.txid}: ${r.detail}`);
  if (withoutEvidence.length)
    lines.push(
      `not checked: ${withoutEvidence.length} verified payment(s) carry no chain evidence (verified without a node): ${withoutEvidence.join(', ')}`,
    );
  lines.push(`${rows.length} verified payment(s) checked against the node: ${rows.length - failed} hold, ${failed} do not`);
  return { lines, failed };
}
