/**
 * Billing's checkpointed subscriber: tells the member when a verified payment made their
 * subscription active (activation or renewal, with the paid-up date) and when a payment was
 * rejected (with the admin's reason); tells the admin when a verified payment's transaction left the
 * chain (PaymentLeftChain). Outbox keys derive from the event id, so a replay never
 * sends twice.
 */
import type { AppContext } from '../context.js';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { configuredAdminEmail } from '../identity/index.js';
import { enqueueMail } from '../mail/index.js';
import type { PaymentLeftChain, PaymentRejected } from './payment.decider.js';
import { paymentKindLabel, planOf } from './plans.js';
import type { SubscriptionEvent } from './subscription.decider.js';

const dateOf = (iso: string) => new Date(iso).toUTCString().replace(/ \d\d:\d\d:\d\d GMT$/, '');

export function billingMailSubscriber(ctx: AppContext): Subscriber {
  const site = ctx.site.siteName;
  return {
    name: 'billing-mail',
    types: ['SubscriptionActivated', 'SubscriptionRenewed', 'PaymentRejected', 'PaymentLeftChain'],
    async handle(tx, recorded: RecordedEvent) {
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
      const user = await tx.get<{ email: string; first_name: string }>('SELECT email, first_name FROM users WHERE id = ?', [
        event.data.userId,
      ]);
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
