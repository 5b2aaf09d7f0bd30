/**
 * The mail module: migrates the outbox (as a schema-only projection, so the CLI and every context
 * have it) and runs the sender loop. Mails are queued by other modules' checkpointed subscribers
 * with `enqueueMail` (outbox.ts).
 */
import type { Projection } from '../eventstore/projections.js';
import type { AppModule } from '../module.js';
import { MAIL_OUTBOX_SCHEMA } from './outbox.js';
import { startMailSender } from './sender.js';

export { enqueueMail, type OutgoingMail } from './outbox.js';

/** Not rebuilt (no tables listed): the outbox records what was sent, it is not derived state. */
export const mailOutboxSchema: Projection = { name: 'mail-outbox', tables: [], schema: MAIL_OUTBOX_SCHEMA, apply: async () => {} };

export const mailModule: AppModule = {
  name: 'mail',
  projections: [mailOutboxSchema],
  background: (ctx) => startMailSender(ctx),
};
