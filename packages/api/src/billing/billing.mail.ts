/**
 * Billing's checkpointed subscriber: tells the member when a verified payment made their
 * subscription active (activation or renewal, with the paid-up date) and when a payment was
 * rejected (with the admin's reason). Outbox keys derive from the event id, so a replay never
 * sends twice.
 */
import type { AppContext } from '../context.js';
import type { Subscriber } from '../eventstore/subscriber.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { enqueueMail } from '../mail/index.js';
import type { PaymentRejected } from './payment.decider.js';
import { paymentKindLabel, planOf } from './plans.js';
import type { SubscriptionEvent } from './subscription.decider.js';

const dateOf = (iso: string) => new Date(iso).toUTCString().replace(/ \d\d:\d\d:\d\d GMT$/, '');

export function billingMailSubscriber(ctx: AppContext): Subscriber {
  const site = ctx.site.siteName;
  return {
    name: 'billing-mail',
    types: ['SubscriptionActivated', 'SubscriptionRenewed', 'PaymentRejected'],
    async handle(tx, recorded: RecordedEvent) {
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
