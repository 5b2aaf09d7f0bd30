/** Plans, Bitcoin payment requests and submissions, subscriptions (spec §3, §9) as the API answers them. */
import { z } from 'zod';
import { multiLineText } from './text';

export const PLAN_TYPE_VALUES = ['monthly', 'annual'] as const;
export const planTypeSchema = z.enum(PLAN_TYPE_VALUES);
/** A plan named in a request: the same values, with the message a refusal gives. */
export const requestedPlanTypeSchema = z.enum(PLAN_TYPE_VALUES, { error: 'must be monthly or annual' });

/**
 * POST /payments/submit-bitcoin-payment ("I've sent payment"): the shape only; the rules (own
 * account, exact plan amount, the hash's form) are the server's billing service's.
 */
export const paymentSubmissionSchema = z.object({
  userId: z.string({ error: 'is required' }).min(1, 'is required'),
  planType: requestedPlanTypeSchema,
  btcAmount: z.union([z.string(), z.number()], { error: 'is required (a BTC amount such as "0.005")' }).transform((v) => String(v).trim()),
  transactionHash: z.string({ error: 'must be a string' }).nullish(),
});
/** A BTC amount as a trimmed decimal string, e.g. "0.0005". */
const btc = z.string();

export const planSchema = z
  .object({
    id: planTypeSchema,
    planType: planTypeSchema,
    name: z.string(),
    interval: z.enum(['month', 'year']),
    btcAmount: btc,
    amountSats: z.number().int(),
    usdPrice: z.number(),
    formerBtcAmount: btc.optional(),
    formerAmountSats: z.number().int().optional(),
    formerUsdPrice: z.number().optional(),
    savingsText: z.string().optional(),
    mostPopular: z.boolean(),
    features: z.array(z.string()),
  })
  .meta({ id: 'Plan' });

export const plansAnswerSchema = z.object({
  plans: z.array(planSchema),
  paymentMethods: z.array(z.literal('bitcoin')),
  bitcoinNetwork: z.enum(['mainnet', 'testnet', 'regtest']),
});

/** An open payment request: pay `btcAmount` to `address` (or scan `bip21Uri`) before `expiresAt`. */
export const paymentRequestSchema = z
  .object({
    paymentId: z.string(),
    planType: planTypeSchema,
    planName: z.string(),
    status: z.enum(['requested', 'submitted', 'verified', 'rejected', 'canceled']),
    address: z.string().nullable(),
    btcAmount: btc,
    amountSats: z.number().int(),
    usdAmount: z.number(),
    bip21Uri: z.string().nullable(),
    requestedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
  })
  .meta({ id: 'PaymentRequest' });

/** The answer to a member's "I've sent payment": it waits for an admin. */
export const submittedPaymentSchema = z.object({
  paymentId: z.string(),
  status: z.literal('pending'),
  planType: planTypeSchema,
  btcAmount: btc,
  submittedDate: z.string().nullable(),
  transactionHash: z.string().optional(),
  address: z.string().optional(),
});

/**
 * GET /payments/pending: a member's payments waiting for an admin, with what the site's Bitcoin node
 * saw (`received`: null without a node or before anything paid the request). A payment the member
 * never submitted appears here once the chain shows it paid.
 */
export const memberPendingPaymentSchema = z
  .object({
    paymentId: z.string(),
    planType: z.enum([...PLAN_TYPE_VALUES, 'custom']),
    btcAmount: btc,
    submittedDate: z.string(),
    transactionHash: z.string().optional(),
    received: z
      .object({ btcAmount: btc, confirmations: z.number().int(), status: z.enum(['unconfirmed', 'confirmed', 'underpaid']) })
      .nullable(),
  })
  .meta({ id: 'MemberPendingPayment' });

export const memberPendingPaymentsSchema = z.object({ payments: z.array(memberPendingPaymentSchema) });

export const subscriptionSchema = z
  .object({
    id: z.string(),
    planType: planTypeSchema,
    status: z.enum(['active', 'canceled', 'past_due', 'unpaid']),
    cancelAtPeriodEnd: z.boolean(),
    /** The plan's USD price. */
    amount: z.number(),
    btcAmount: btc,
    currentPeriodStart: z.string(),
    currentPeriodEnd: z.string(),
    gracePeriodEnd: z.string().optional(),
    /**
     * The renewal payment request of the current period, once open (`renewals.noticeDays` before
     * the end, unless set to cancel): pay it by `dueAt` (the period's end) to keep access without a
     * gap; it stays payable until `expiresAt` (the end plus the grace period). Null before, or when
     * nothing will renew.
     */
    renewal: paymentRequestSchema.extend({ dueAt: z.string() }).nullable().optional(),
  })
  .meta({ id: 'Subscription' });

/** The member's subscription, or null when they never had one. */
export const currentSubscriptionSchema = subscriptionSchema.nullable();

export const CHAIN_STATUS_VALUES = [
  'unchecked',
  'awaiting',
  'not_found',
  'wrong_address',
  'underpaid',
  'unconfirmed',
  'confirmed',
  'conflicted',
] as const;

/**
 * What the site's Bitcoin node shows for a payment: `unchecked` (no node configured, or not checked
 * yet), `awaiting` (no hash submitted, nothing seen yet), `not_found`, `wrong_address`, `underpaid`,
 * `unconfirmed`, `confirmed` (≥ `bitcoin.confirmations`), `conflicted` (replaced, double-spent, gone after a reorg).
 */
export const chainCheckSchema = z
  .object({
    status: z.enum(CHAIN_STATUS_VALUES),
    txid: z.string().nullable(),
    receivedSats: z.number().int(),
    confirmations: z.number().int(),
    blockHeight: z.number().int().nullable(),
    blockHash: z.string().nullable(),
    checkedAt: z.string().nullable(),
  })
  .meta({ id: 'ChainCheck' });

/** A payment waiting for an admin (spec §3 PendingPayment); `transactionHash` only when the member gave one or the chain showed it. */
export const pendingPaymentSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    userEmail: z.string(),
    /** `custom`: the payment pays for a custom video request (`customRequestId`), not a plan. */
    planType: z.enum([...PLAN_TYPE_VALUES, 'custom']),
    customRequestId: z.string().optional(),
    btcAmount: btc,
    amountSats: z.number().int(),
    submittedDate: z.string(),
    address: z.string().optional(),
    transactionHash: z.string().optional(),
    explorerUrl: z.string().optional(),
    chain: chainCheckSchema,
    /** A verified payment whose transaction left the chain: when it was flagged (the `flagged` list only). */
    flaggedAt: z.string().optional(),
  })
  .meta({ id: 'PendingPayment' });

/** One keyset page of submitted payments: `nextCursor` (null on the last page) goes back as `?after=`; `count` counts every pending payment. */
export const pendingPaymentsAnswerSchema = z.object({
  payments: z.array(pendingPaymentSchema),
  /** Verified payments whose transaction left the chain (a reorg, a double spend): for the admin to judge; nothing is revoked. */
  flagged: z.array(pendingPaymentSchema),
  /** Whether the site follows a Bitcoin node, and how many confirmations make a payment `confirmed`. */
  chainNode: z.object({ configured: z.boolean(), confirmations: z.number().int() }),
  count: z.number().int(),
  nextCursor: z.string().nullable(),
});

export const verifiedPaymentAnswerSchema = z.object({
  paymentId: z.string(),
  status: z.literal('verified'),
  subscription: currentSubscriptionSchema,
  /** Set when the payment paid for a custom video request (now `paid`). */
  customRequestId: z.string().optional(),
});

/** POST /admin/payments/{id}/verify: an optional override when the chain does not show the payment confirmed. */
export const verifyPaymentBodySchema = z.object({
  override: z
    .object({
      // The text policy (text.ts): the audit's payment history carries it.
      reason: multiLineText({ min: 1, max: 500, required: 'is required', empty: 'Please say why you verify anyway' }),
    })
    .optional(),
});

export const rejectedPaymentAnswerSchema = z.object({ paymentId: z.string(), status: z.literal('rejected'), reason: z.string() });

export const analyticsDaySchema = z.object({
  date: z.string(),
  revenueSats: z.number().int(),
  revenueBtc: btc,
  verifiedPayments: z.number().int(),
  registrations: z.number().int(),
  approvals: z.number().int(),
  activeSubscriptions: z.number().int(),
});

/** Per-day figures from `from` to `to` (UTC days) and their totals. */
export const analyticsSchema = z.object({
  from: z.string(),
  to: z.string(),
  days: z.array(analyticsDaySchema),
  totals: analyticsDaySchema.omit({ date: true }),
});

/** One plan's figures in one UTC calendar month (GET /api/admin/analytics?months=N); docs/operations.md "Analytics" defines each. */
export const planMonthSchema = z.object({
  month: z.string(),
  plan: z.enum(['monthly', 'annual']),
  activeMembers: z.number().int(),
  newMembers: z.number().int(),
  churned: z.number().int(),
  renewed: z.number().int(),
  medianMembershipDays: z.number().nullable(),
  revenueSats: z.number().int(),
  revenueBtc: btc,
});

/** Per plan and UTC calendar month, the last `months` months up to the current one, oldest first. */
export const analyticsByPlanSchema = z.object({
  from: z.string(),
  to: z.string(),
  byPlan: z.array(planMonthSchema),
});

/** One video's views and watch time over a period (GET /api/admin/analytics/videos). */
export const videoFiguresSchema = z.object({
  videoId: z.string(),
  title: z.string(),
  views: z.number().int(),
  watchSeconds: z.number().int(),
});

/** Per-video views and watch time from `from` to `to` (UTC days, both included), most watched first. */
export const videoAnalyticsSchema = z.object({
  from: z.string(),
  to: z.string(),
  videos: z.array(videoFiguresSchema),
});
