/**
 * The chain watcher, leader-only time-driven work: every `BITCOIN_POLL_SECONDS` it brings the
 * follower up to the node's tip and mempool, decides each watched payment's chain status
 * (`assessPayment`, pure) and records the changes as events through the payment aggregate
 * (`RecordChainCheck`: the decider chooses the events). With `bitcoin.autoVerify` a payment the
 * chain shows `confirmed` is verified by the chain itself.
 */

import { UniqueViolation } from '../../db/types.js';
import { findUserById } from '../../identity/index.js';
import type { AppContext } from '../../kernel/context.js';
import type { Started } from '../../kernel/module.js';
import { type Caller, eventMetadata } from '../../shared/eventMetadata.js';
import { payments } from '../billing.commands.js';
import { outputScriptOf } from '../bitcoinAddress.js';
import type { PaymentRow } from '../readModels.js';
import { watchedPayments } from '../readModels.js';
import { type ChainSource, rpcChainSource } from './bitcoinRpc.js';
import { type ChainFollower, chainFollower } from './chainFollower.js';
import { assessPayment, type ChainObservation, type ChainStatus, sameObservation, WATCH_DEPTH } from './chainStatus.js';

/** The chain as the actor of what the watcher records and of automatic verifications. */
export const CHAIN_CALLER: Caller & { actor: string } = { actorId: null, actor: 'bitcoin-chain' };

/** Whether the operator configured a node: without one nothing is checked and every status is `unchecked`. */
export const nodeConfigured = (env: AppContext['env']): boolean => Boolean(env.BITCOIN_RPC_URL);

/** The configured node as a checked chain source, or undefined. */
export function configuredChainSource(env: AppContext['env']): ChainSource | undefined {
  if (!env.BITCOIN_RPC_URL) return undefined;
  return rpcChainSource({ url: env.BITCOIN_RPC_URL, cookieFile: env.BITCOIN_RPC_COOKIE_FILE });
}

const WEEK_MS = 7 * 86_400_000;

function previousOf(row: PaymentRow): ChainObservation | undefined {
  if (!row.chain_status) return undefined;
  return {
    status: row.chain_status as ChainStatus,
    txid: row.chain_txid,
    outputIndex: row.chain_output_index === null ? null : Number(row.chain_output_index),
    receivedSats: Number(row.chain_received_sats ?? 0),
    confirmations: Number(row.chain_confirmations ?? 0),
    blockHeight: row.chain_block_height === null ? null : Number(row.chain_block_height),
    blockHash: row.chain_block_hash,
    rbf: false,
  };
}

interface Watched {
  row: PaymentRow;
  script: string | undefined;
  /** The request has an address of its own (xpub mode): any transaction paying it is its payment. */
  ownAddress: boolean;
}

function watchedOf(ctx: AppContext, row: PaymentRow): Watched {
  const { network, address: fixed } = ctx.site.bitcoin;
  const address = row.address ?? fixed;
  return {
    row,
    script: address ? outputScriptOf(address, network) : undefined,
    ownAddress: row.address_index !== null && row.address_index !== undefined,
  };
}

/** Records one observation; a payment nobody submitted is submitted with the chain's hash (unless a unique rule forbids it). */
async function record(ctx: AppContext, w: Watched, observation: ChainObservation): Promise<void> {
  const meta = eventMetadata(ctx, CHAIN_CALLER);
  const submit = w.row.status === 'requested' && w.ownAddress;
  const email = submit ? ((await findUserById(ctx.db, w.row.user_id))?.email ?? '') : undefined;
  const command = { type: 'RecordChainCheck' as const, paymentId: w.row.id, observation, now: meta.at };
  try {
    await payments(ctx.store).handle(w.row.id, email === undefined ? command : { ...command, submitAs: { userEmail: email } }, meta, {
      retries: 20,
    });
  } catch (err) {
    // The hash was already submitted by another payment, or the member has another pending one for
    // the plan: the observation is kept, the admin sees it on the request.
    if (!(err instanceof UniqueViolation)) throw err;
    await payments(ctx.store).handle(w.row.id, command, meta, { retries: 20 });
  }
}

/** What verifying a payment does (the payments service's use case, handed in so this file does not import it). */
export type VerifyByChain = (ctx: AppContext, paymentId: string, caller: Caller) => Promise<{ ok: boolean }>;

/**
 * One pass: follow the chain, assess every watched payment, record what changed, auto-verify.
 * Answers how many payments got a new observation.
 */
export async function checkPaymentsOnChain(ctx: AppContext, follower: ChainFollower, verify: VerifyByChain): Promise<number> {
  const now = ctx.clock.now();
  const rows = await watchedPayments(ctx.db, new Date(now.getTime() - WEEK_MS).toISOString(), WATCH_DEPTH);
  const watched = rows.map((row) => watchedOf(ctx, row));
  const scripts = new Set(watched.filter((w) => w.ownAddress && w.script).map((w) => w.script as string));
  const txids = new Set(watched.flatMap((w) => (w.row.tx_hash ? [w.row.tx_hash] : [])));
  const tipHeight = await follower.sync({ scripts, txids });
  const { confirmations, underpaymentTolerancePercent, autoVerify } = ctx.site.bitcoin;
  let changed = 0;
  for (const w of watched) {
    const txHash = w.row.tx_hash ?? undefined;
    const previous = previousOf(w.row);
    const observation = assessPayment(
      { amountSats: Number(w.row.amount_sats), script: w.script, txHash, previous },
      {
        tipHeight,
        ...(txHash ? { submitted: follower.seen(txHash) ?? 'absent' } : {}),
        paying: w.ownAddress && w.script ? follower.paying(w.script) : [],
      },
      { confirmations, underpaymentTolerancePercent },
    );
    if (!sameObservation(previous, observation)) {
      await record(ctx, w, observation);
      changed++;
    }
    if (autoVerify && w.ownAddress && observation.status === 'confirmed' && w.row.status !== 'verified') {
      const verified = await verify(ctx, w.row.id, CHAIN_CALLER);
      if (!verified.ok) ctx.logger.warn({ paymentId: w.row.id }, 'automatic verification refused');
    }
  }
  return changed;
}

/** Runs `checkPaymentsOnChain` every `intervalMs`, one pass at a time; a node that does not answer is logged and retried. */
export function startChainWatcher(ctx: AppContext, source: ChainSource, verify: VerifyByChain, intervalMs: number): Started {
  const follower = chainFollower(source);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let failing = false;
  const tick = () => {
    running = checkPaymentsOnChain(ctx, follower, verify)
      .then(() => {
        if (failing) ctx.logger.info('bitcoin node answers again');
        failing = false;
      })
      .catch((err) => {
        if (!failing) ctx.logger.error({ err }, 'checking payments against the bitcoin node failed; will retry');
        failing = true;
      })
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
