/**
 * The mail sender loop: drains due outbox rows, one claimed attempt each, marks them sent, and on
 * failure retries with exponential backoff (30 s doubling to an hour) on the injected clock. Each
 * delivery looks up its member's key right before sending and runs exclusive with their erasure
 * (shredding/personalWrites.ts): a mail whose member was erased, or whose row the erasure removed, is
 * not sent.
 */

import type { Queryable } from '../db/types.js';
import type { AppContext } from '../kernel/context.js';
import type { Started } from '../kernel/module.js';
import { whilePersonal } from '../shredding/index.js';
import { claimMail, dueMails, markFailed, markSent, type OutboxRow, stillQueued } from './outbox.js';
import { createMailTransport, type MailTransport } from './transport.js';

export const CLAIM_LEASE_MS = 5 * 60_000;

const ADDRESS = /[^\s<>"'(),;:@]+@[^\s<>"'(),;:@]+/g;

/**
 * A failed delivery as it may be logged: the message, code and SMTP status with any e-mail address
 * replaced, and none of nodemailer's other fields (`rejected`, `envelope`, `response` name the
 * recipient). The log outlives an erasure; the outbox key names the mail instead.
 */
export function withoutAddresses(err: unknown): { message: string; code?: string; responseCode?: number; command?: string } {
  const e = (err ?? {}) as { message?: unknown; code?: unknown; responseCode?: unknown; command?: unknown };
  const message = String(e.message ?? err).replace(ADDRESS, '<address>');
  return {
    message,
    ...(typeof e.code === 'string' && { code: e.code }),
    ...(typeof e.responseCode === 'number' && { responseCode: e.responseCode }),
    ...(typeof e.command === 'string' && { command: e.command.replace(ADDRESS, '<address>') }),
  };
}

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

  /** Sends one claimed mail unless it is gone or its member erased; answers whether it was sent. */
  async function deliver(mail: OutboxRow): Promise<boolean> {
    const send = async (q: Queryable) => {
      if (!(await stillQueued(q, mail.key))) return false;
      await transport.send(mail);
      await markSent(q, mail.key, ctx.clock.now());
      return true;
    };
    // Rows queued before migration 009 name no member: sent as before.
    if (!mail.subject_id) return send(ctx.db);
    const r = await whilePersonal(ctx.db, mail.subject_id, send);
    return !r.erased && r.value;
  }

  async function sendDue(): Promise<number> {
    let sent = 0;
    for (const mail of await dueMails(ctx.db, ctx.clock.now())) {
      if (stopped || !(await claimMail(ctx.db, mail.key, ctx.clock.now(), CLAIM_LEASE_MS))) continue;
      try {
        if (await deliver(mail)) sent++;
      } catch (err) {
        const retryAt = new Date(ctx.clock.now().getTime() + retryDelayMs(mail.attempts + 1));
        ctx.logger.warn({ err: withoutAddresses(err), key: mail.key, retryAt }, 'mail not sent; will retry');
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
