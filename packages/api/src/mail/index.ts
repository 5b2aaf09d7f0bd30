/**
 * The mail module: runs the sender loop. Mails are queued by other modules' checkpointed
 * subscribers with `enqueueMail` (outbox.ts); the outbox table comes from db/migrations. An erased
 * member's mail leaves the outbox and the dev outbox's files (personalData.ts).
 */
import type { AppModule } from '../kernel/module.js';
import { mailGauges } from './gauges.js';
import { eraseMailData } from './personalData.js';
import { startMailSender } from './sender.js';

export { enqueueMail, mailsQueuedSince, type OutgoingMail } from './outbox.js';

export const mailModule: AppModule = {
  name: 'mail',
  background: (ctx) => startMailSender(ctx),
  gauges: mailGauges,
  erasePersonalData: eraseMailData,
};
