/**
 * Billing's checkpointed subscriber: tells the member when a verified payment made their
 * subscription active (activation or renewal, with the paid-up date) and when a payment was
 * rejected (with the admin's reason); tells the admin when a verified payment's transaction left the
 * chain (PaymentLeftChain); asks the member to pay a renewal when its request opens (a
 * PaymentRequested with `renewal`) and reminds them (PaymentRenewalReminded). Outbox keys derive
 * from the event id, so a replay never sends twice.
 */

import { satsToBtc } from '@members/ui/money';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { publicUrl } from '../http/linkOrigin.js';
import { configuredAdminEmail, findUserById } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { enqueueMail } from '../mail/index.js';
import type { PaymentLeftChain, PaymentRejected, PaymentRenewalReminded, PaymentRequested } from './payment.decider.js';
import { type PlanType, paymentKindLabel, planOf } from './plans.js';
import type { SubscriptionEvent } from './subscription.decider.js';

const dateOf = (iso: string) => new Date(iso).toUTCString().replace(/ \d\d:\d\d:\d\d GMT$/, '');

export function billingMailSubscriber(ctx: AppContext): Subscriber {
  const site = ctx.site.siteName;
  return {
    name: 'billing-mail',
    types: [
      'SubscriptionActivated',
      'SubscriptionRenewed',
      'PaymentRejected',
      'PaymentLeftChain',
      'PaymentRequested',
      'PaymentRenewalReminded',
    ],
    async handle(tx, recorded: RecordedEvent) {
      if (recorded.type === 'PaymentRequested' || recorded.type === 'PaymentRenewalReminded') {
        const event = recorded as unknown as PaymentRequested | PaymentRenewalReminded;
        if (event.type === 'PaymentRequested' && !event.data.renewal) return; // a member's own request: they are on the page
        const p = await tx.get<{
          address: string;
          amount_sats: number | string;
          bip21_uri: string;
          expires_at: string;
          plan_type: string;
          status: string;
        }>('SELECT address, amount_sats, bip21_uri, expires_at, plan_type, status FROM billing_payments WHERE id = ?', [
          event.data.paymentId,
        ]);
        const user = await findUserById(tx, event.data.userId);
        if (!p || !user) return;
        const plan = planOf(ctx.site, p.plan_type as PlanType);
        const end = event.type === 'PaymentRequested' ? (event.data.renewal?.periodEnd as string) : event.data.periodEnd;
        const lead =
          event.type === 'PaymentRequested'
            ? `Your ${plan.name} subscription's current period ends on ${dateOf(end)}. To keep your access without a gap, please pay the renewal by then.`
            : event.data.kind === 'day_before'
              ? `A reminder: your ${plan.name} subscription's current period ends tomorrow, ${dateOf(end)}, and its renewal is not paid yet.`
              : `Your ${plan.name} subscription's period ended on ${dateOf(end)} without a renewal payment. You keep access until ${dateOf(p.expires_at)}; pay the renewal before then to keep it.`;
        const subject =
          event.type === 'PaymentRequested'
            ? `${site}: renewal due on ${dateOf(end)}`
            : event.data.kind === 'day_before'
              ? `${site}: your renewal is due tomorrow`
              : `${site}: your renewal is overdue`;
        await enqueueMail(
          ctx.db.dialect,
          tx,
          {
            subjectId: event.data.userId,
            key: `${event.type === 'PaymentRequested' ? 'renewal-due' : 'renewal-reminder'}:${recorded.eventId}`,
            to: user.email,
            subject,
            text: `Hi ${user.first_name},\n\n${lead}\n\nAmount: ${satsToBtc(Number(p.amount_sats))} BTC\nAddress: ${p.address}\nPayment link for your wallet: ${p.bip21_uri}\n\nAfter sending, press "I've sent payment" on your subscription page: ${publicUrl(ctx.env)}/subscription\nThe new period starts where the current one ends, so paying early loses nothing. We verify payments manually within 24 hours.\n\nIf you do not want to renew, cancel on that page and this request is closed.\n\n${site}`,
          },
          ctx.clock.now(),
        );
        return;
      }
      if (recorded.type === 'PaymentLeftChain') {
        const left = recorded as unknown as PaymentLeftChain;
        const admin = ctx.site.adminEmail ?? configuredAdminEmail(ctx.env);
        if (!admin) return;
        await enqueueMail(
          ctx.db.dialect,
          tx,
          {
            subjectId: left.data.userId,
            key: `payment-left-chain:${recorded.eventId}`,
            to: admin,
            subject: `${site}: a verified Bitcoin payment left the chain`,
            text: `The transaction ${left.data.txid ?? '(unknown)'} of verified payment ${left.data.paymentId} (${paymentKindLabel(ctx.site, left.data.planType)}) is no longer confirmed in the best chain: the node now says "${left.data.status}" (a reorg or a double spend).\n\nNothing was revoked. Look at the payment in the admin's pending payments ("flagged") and decide.\n\n${site}`,
          },
          ctx.clock.now(),
        );
        return;
      }
      const event = recorded as unknown as SubscriptionEvent | PaymentRejected;
      const user = await findUserById(tx, event.data.userId);
      if (!user) return;
      const hi = `Hi ${user.first_name},`;
      if (event.type === 'PaymentRejected') {
        const what = paymentKindLabel(ctx.site, event.data.planType);
        await enqueueMail(
          ctx.db.dialect,
          tx,
          {
            subjectId: event.data.userId,
            key: `payment-rejected:${recorded.eventId}`,
            to: user.email,
            subject: `${site}: your Bitcoin payment could not be verified`,
            text: `${hi}\n\nWe could not verify your Bitcoin payment for ${what}.\n\nReason: ${event.data.reason}\n\nIf you believe this is a mistake, reply to this e-mail or contact ${ctx.site.contactEmail} with your transaction hash.\n\n${site}`,
          },
          ctx.clock.now(),
        );
        return;
      }
      if (event.type !== 'SubscriptionActivated' && event.type !== 'SubscriptionRenewed') return;
      const renewed = event.type === 'SubscriptionRenewed';
      const plan = planOf(ctx.site, event.data.planType).name;
      await enqueueMail(
        ctx.db.dialect,
        tx,
        {
          subjectId: event.data.userId,
          key: `subscription-active:${recorded.eventId}`,
          to: user.email,
          subject: `${site}: your subscription is active`,
          text: `${hi}\n\nYour Bitcoin payment was verified and your ${plan} subscription is ${renewed ? 'renewed' : 'now active'}. Your access runs until ${dateOf(event.data.periodEnd)}.\n\nEnjoy the full collection.\n\n${site}`,
        },
        ctx.clock.now(),
      );
    },
  };
}
