/** Plans, Bitcoin payment requests and submissions, subscriptions (spec §3, §9) as the API answers them. */
import { z } from 'zod';

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
  bitcoinNetwork: z.enum(['mainnet', 'testnet']),
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
  })
  .meta({ id: 'Subscription' });

/** The member's subscription, or null when they never had one. */
export const currentSubscriptionSchema = subscriptionSchema.nullable();

/** A payment waiting for an admin (spec §3 PendingPayment); `transactionHash` only when the member gave one. */
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
  })
  .meta({ id: 'PendingPayment' });

/** One keyset page of submitted payments: `nextCursor` (null on the last page) goes back as `?after=`; `count` counts every pending payment. */
export const pendingPaymentsAnswerSchema = z.object({
  payments: z.array(pendingPaymentSchema),
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
