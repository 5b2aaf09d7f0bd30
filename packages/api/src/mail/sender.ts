/**
 * The mail sender loop: drains due outbox rows, one claimed attempt each, marks them sent, and on
 * failure retries with exponential backoff (30 s doubling to an hour) on the injected clock.
 */
import type { AppContext } from '../context.js';
import type { Started } from '../module.js';
import { claimMail, dueMails, markFailed, markSent } from './outbox.js';
import { createMailTransport, type MailTransport } from './transport.js';

export const CLAIM_LEASE_MS = 5 * 60_000;

export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 60 * 60_000);
}

export interface MailSender extends Started {
  /** Sends everything due now; resolves with the number sent. */
  drain(): Promise<number>;
}

export function startMailSender(ctx: AppContext, opts: { pollMs?: number; transport?: MailTransport } = {}): MailSender {
  const transport = opts.transport ?? createMailTransport(ctx);
  let running: Promise<number> = Promise.resolve(0);
  let stopped = false;

  async function sendDue(): Promise<number> {
    let sent = 0;
    for (const mail of await dueMails(ctx.db, ctx.clock.now())) {
      if (stopped || !(await claimMail(ctx.db, mail.key, ctx.clock.now(), CLAIM_LEASE_MS))) continue;
      try {
        await transport.send(mail);
        await markSent(ctx.db, mail.key, ctx.clock.now());
        sent++;
      } catch (err) {
        const retryAt = new Date(ctx.clock.now().getTime() + retryDelayMs(mail.attempts + 1));
        ctx.logger.warn({ err, key: mail.key, to: mail.to_address, retryAt }, 'mail not sent; will retry');
        await markFailed(ctx.db, mail.key, (err as Error).message ?? String(err), retryAt);
      }
    }
    return sent;
  }

  function drain(): Promise<number> {
    running = running.then(sendDue, sendDue).catch((err) => {
      ctx.logger.error({ err }, 'mail sender failed; will retry');
      return 0;
    });
    return running;
  }

  const timer = setInterval(() => {
    if (!stopped) void drain();
  }, opts.pollMs ?? 500);
  timer.unref();

  return {
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      transport.close();
    },
  };
}
