/**
 * The audit reports' shapes for the OpenAPI document. Only admins and auditors' tools read them
 * (the web app and the desktop console do not), so they live here rather than in packages/ui.
 * `satisfies` ties each to the TypeScript type the report code produces.
 */
import { z } from 'zod';
import type { SignedCheckpoint } from './checkpoint.js';
import type { PaymentHistoryRow } from './paymentHistory.js';
import type { ReconcileReport } from './reconcile.js';
import type { SubscriptionAtRow } from './subscriptionReplay.js';
import type { VerifyResult } from './verifyChain.js';

const chainBreakSchema = z.object({
  position: z.number().int(),
  kind: z.enum(['gap', 'prev_hash', 'hash', 'unreadable', 'checkpoint']),
  message: z.string(),
  expected: z.string().optional(),
  actual: z.string().optional(),
});

export const verifyResultSchema = z.union([
  z.object({ ok: z.literal(true), events: z.number().int(), headPosition: z.number().int(), headHash: z.string() }),
  z.object({ ok: z.literal(false), events: z.number().int(), break: chainBreakSchema }),
]);

export const signedCheckpointSchema = z.object({
  position: z.number().int(),
  hash: z.string(),
  time: z.string(),
  algorithm: z.literal('Ed25519'),
  signature: z.string().describe('base64 of the 64-byte Ed25519 signature over the canonical JSON {hash, position, time}'),
  publicKey: z.string().describe('base64 of the raw 32-byte public key'),
});

export const reconcileReportSchema = z.object({
  ok: z.boolean(),
  events: z.number().int(),
  position: z.number().int(),
  replayed: z.object({
    revenueSats: z.number().int(),
    verifiedPayments: z.number().int(),
    pendingPayments: z.number().int(),
    activeSubscribers: z.number().int(),
    subscriptions: z.number().int(),
  }),
  differences: z.array(
    z.object({
      check: z.string(),
      subject: z.string(),
      message: z.string(),
      expected: z.unknown().optional(),
      actual: z.unknown().optional(),
    }),
  ),
});

export const paymentHistoryRowSchema = z.object({
  position: z.number().int(),
  time: z.string(),
  action: z.enum(['requested', 'submitted', 'verified', 'rejected', 'canceled']),
  paymentId: z.string(),
  userId: z.string(),
  memberEmail: z.string().nullable(),
  planType: z.string(),
  amountSats: z.number().int(),
  btcAmount: z.string(),
  address: z.string().nullable(),
  txHash: z.string().nullable(),
  actingAdminId: z.string().nullable(),
  actingAdminEmail: z.string().nullable(),
  /** The acting staff member's display name (issue 42). */
  actingAdminName: z.string().nullable(),
  reason: z.string().nullable(),
  /** A verification's chain evidence (a Bitcoin node configured), else null. */
  evidenceTxid: z.string().nullable(),
  evidenceOutputIndex: z.number().int().nullable(),
  evidenceReceivedSats: z.number().int().nullable(),
  evidenceBlockHash: z.string().nullable(),
  evidenceBlockHeight: z.number().int().nullable(),
  evidenceConfirmations: z.number().int().nullable(),
  /** Verified although the chain did not show it confirmed: the admin's reason and the status overridden. */
  overrideReason: z.string().nullable(),
  overriddenChainStatus: z.string().nullable(),
});

export const subscriptionAtRowSchema = z.object({
  userId: z.string(),
  memberEmail: z.string().nullable(),
  subscriptionId: z.string(),
  status: z.string(),
  planType: z.string(),
  periodStart: z.string(),
  periodEnd: z.string(),
  cancelAtPeriodEnd: z.boolean(),
  paymentId: z.string(),
  amountSats: z.number().int(),
  btcAmount: z.string(),
  lastPosition: z.number().int(),
  lastChangedAt: z.string(),
});

// Compile-time ties: a field renamed in the report code and not here (or the reverse) fails tsc.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const ties: [
  Same<z.infer<typeof verifyResultSchema>, VerifyResult>,
  Same<z.infer<typeof signedCheckpointSchema>, SignedCheckpoint>,
  Same<z.infer<typeof reconcileReportSchema>['replayed'], ReconcileReport['replayed']>,
  Same<z.infer<typeof paymentHistoryRowSchema>, PaymentHistoryRow>,
  Same<z.infer<typeof subscriptionAtRowSchema>, SubscriptionAtRow>,
] = [true, true, true, true, true];
void ties;

/** The three formats of a streamed row report. */
export const reportFormatQuery = z.object({
  format: z
    .enum(['csv', 'json', 'ndjson'], { error: 'must be csv, json or ndjson' })
    .default('json')
    .describe('json: the envelope with `data` as the array of rows'),
});
