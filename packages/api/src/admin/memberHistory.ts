/**
 * A member's history in plain words, one line per event, for the admin's member page. Pure: the
 * events in, the lines out. Only facts an admin needs are copied out of an event (amounts, plan,
 * transaction hash, reasons); hashes of passwords and tokens never leave the server.
 */

import { formatBtc, satsToBtc } from '@members/ui/money';
import type { RecordedEvent } from '../eventstore/types.js';

export type HistoryCategory = 'account' | 'approval' | 'security' | 'payment' | 'subscription' | 'erasure';

export interface HistoryEntry {
  position: number;
  at: string;
  type: string;
  category: HistoryCategory;
  summary: string;
  /** Who caused it: the member or an admin (null when the system did; then `systemActor` names the job when known). */
  actorId: string | null;
  systemActor: string | null;
  /** Selected facts (amounts, hashes, reasons) for the table; never secrets. */
  details: Record<string, string | number | null>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const btc = (v: unknown): string => (typeof v === 'number' ? formatBtc(satsToBtc(v)) : '');
const day = (v: unknown): string => str(v).slice(0, 10);
const plan = (v: unknown): string => (v === 'annual' ? 'Annual' : v === 'monthly' ? 'Monthly' : str(v));

type Described = Pick<HistoryEntry, 'category' | 'summary' | 'details'>;

function describe(e: RecordedEvent): Described | undefined {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'UserRegistered':
      return { category: 'account', summary: d.role === 'admin' ? 'Admin account created' : 'Registered', details: {} };
    case 'UserApproved':
      return { category: 'approval', summary: 'Approved', details: {} };
    case 'UserRejected':
      return {
        category: 'approval',
        summary: d.reason ? `Rejected: ${str(d.reason)}` : 'Rejected',
        details: { reason: str(d.reason) || null },
      };
    case 'UserSuspended':
      return { category: 'approval', summary: `Suspended: ${str(d.reason)}`, details: { reason: str(d.reason) || null } };
    case 'UserReinstated':
      return { category: 'approval', summary: 'Reinstated', details: {} };
    case 'AdminRoleGranted':
      return { category: 'account', summary: 'Made an admin', details: {} };
    case 'StaffInvited':
      return { category: 'account', summary: `Invited to the staff as ${str(d.staffRole)}`, details: { role: str(d.staffRole) } };
    case 'StaffJoined':
      return { category: 'account', summary: `Joined the staff as ${str(d.staffRole)}`, details: { role: str(d.staffRole) } };
    case 'StaffRoleChanged':
      return {
        category: 'account',
        summary: `Staff role changed from ${str(d.previousRole)} to ${str(d.staffRole)}`,
        details: { role: str(d.staffRole) },
      };
    case 'StaffRemoved':
      return { category: 'account', summary: 'Removed from the staff', details: {} };
    case 'PasswordChanged':
      return {
        category: 'security',
        summary:
          d.via === 'reset'
            ? 'Password reset by e-mail link'
            : d.via === 'bootstrap'
              ? 'Password set from the configuration'
              : 'Password changed',
        details: {},
      };
    case 'PasswordResetRequested':
      return { category: 'security', summary: 'Password reset requested', details: {} };
    case 'EmailVerified':
      return { category: 'account', summary: 'E-mail address verified', details: {} };
    case 'EmailChangeRequested':
      return { category: 'account', summary: 'E-mail change requested', details: {} };
    case 'EmailChanged':
      return { category: 'account', summary: 'E-mail address changed', details: {} };
    case 'ProfileUpdated':
      return { category: 'account', summary: 'Name changed', details: {} };
    case 'SecondFactorEnrolled':
      return { category: 'security', summary: 'Two-factor authentication turned on', details: {} };
    case 'SecondFactorRemoved':
      return { category: 'security', summary: 'Two-factor authentication turned off', details: {} };
    case 'RecoveryCodeUsed':
      return { category: 'security', summary: 'Signed in with a recovery code', details: {} };
    case 'SecondFactorEnrolmentStarted':
      return undefined; // an unfinished setup is noise on this page
    case 'PasskeyRegistered':
      return { category: 'security', summary: 'Passkey added', details: {} };
    case 'PasskeyRemoved':
      return { category: 'security', summary: 'Passkey removed', details: {} };
    case 'PasskeyUsed':
      return undefined; // a sign-in, as password sign-ins are not listed either
    case 'PaymentRequested':
      return {
        category: 'payment',
        summary: `${d.renewal ? 'Renewal requested' : 'Payment requested'}: ${plan(d.planType)}, ${btc(d.amountSats)}`,
        details: { paymentId: str(d.paymentId), amountSats: Number(d.amountSats), planType: str(d.planType) },
      };
    case 'PaymentSubmitted':
      return {
        category: 'payment',
        summary: `Payment submitted: ${plan(d.planType)}, ${btc(d.amountSats)}`,
        details: {
          paymentId: str(d.paymentId),
          amountSats: Number(d.amountSats),
          planType: str(d.planType),
          txHash: str(d.txHash) || null,
        },
      };
    case 'PaymentVerified':
      return {
        category: 'payment',
        summary: `Payment verified: ${plan(d.planType)}, ${btc(d.amountSats)}`,
        details: {
          paymentId: str(d.paymentId),
          amountSats: Number(d.amountSats),
          planType: str(d.planType),
          txHash: str(d.txHash) || null,
        },
      };
    case 'PaymentRejected':
      return {
        category: 'payment',
        summary: `Payment rejected: ${str(d.reason)}`,
        details: { paymentId: str(d.paymentId), amountSats: Number(d.amountSats), reason: str(d.reason) },
      };
    case 'PaymentCanceled':
      return {
        category: 'payment',
        summary:
          d.reason === 'subscription_canceled'
            ? 'Renewal request closed: set to cancel at period end'
            : 'Payment canceled: the account was erased',
        details: { paymentId: str(d.paymentId), amountSats: Number(d.amountSats), reason: str(d.reason) },
      };
    case 'PaymentRenewalReminded':
      return {
        category: 'payment',
        summary: d.kind === 'past_due' ? 'Renewal reminder: the period ended unpaid' : 'Renewal reminder: the period ends tomorrow',
        details: { paymentId: str(d.paymentId) },
      };
    case 'SubscriptionActivated':
      return { category: 'subscription', summary: `Subscription started: ${plan(d.planType)} until ${day(d.periodEnd)}`, details: {} };
    case 'SubscriptionRenewed':
      return { category: 'subscription', summary: `Subscription extended until ${day(d.periodEnd)}`, details: {} };
    case 'SubscriptionCancelRequested':
      return { category: 'subscription', summary: `Cancel at period end (${day(d.periodEnd)}) requested`, details: {} };
    case 'SubscriptionReactivated':
      return { category: 'subscription', summary: 'Subscription reactivated', details: {} };
    case 'SubscriptionPastDue':
      return { category: 'subscription', summary: `Subscription past due (grace until ${day(d.graceUntil)})`, details: {} };
    case 'SubscriptionUnpaid':
      return { category: 'subscription', summary: 'Subscription unpaid', details: {} };
    case 'SubscriptionCanceled':
      return {
        category: 'subscription',
        summary:
          d.reason === 'account_erased' ? 'Subscription ended (the account was erased)' : 'Subscription ended (canceled at period end)',
        details: {},
      };
    case 'MemberErased':
      return { category: 'erasure', summary: d.reason ? `Erased: ${str(d.reason)}` : 'Erased', details: { reason: str(d.reason) || null } };
    default:
      return { category: 'account', summary: e.type, details: {} };
  }
}

/**
 * The member's events from several streams as one history in log order.
 * @example memberHistory([...userStream, ...subscriptionStream]) // [{ position: 3, summary: 'Registered', … }]
 */
export function memberHistory(events: RecordedEvent[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (const e of [...events].sort((a, b) => a.position - b.position)) {
    const described = describe(e);
    if (!described) continue;
    // A registration comes from a visitor with no account yet: the member themself.
    const actor = e.metadata.actorId ?? (e.type === 'UserRegistered' ? str((e.data as Record<string, unknown>).userId) || null : null);
    const systemActor = actor ? null : str(e.metadata.actor) || null;
    out.push({ position: e.position, at: str(e.metadata.at) || e.recordedAt, type: e.type, actorId: actor, systemActor, ...described });
  }
  return out;
}
