/**
 * How a mail leaves: nodemailer over SMTP_URL, or — without SMTP_URL, or with MAIL_TRANSPORT=outbox
 * (for testing; production refuses to start with neither, config/env.ts) — an .eml file per mail
 * under DATA_DIR/outbox plus a log line naming the outbox key (the dev outbox). The files hold reset
 * and verification links, so only the server's user may read them: files 0600 in a 0700 folder.
 * The Message-ID is derived from the outbox key,
 * so a resend after a crash carries the same id and a receiver can drop the duplicate. Both write
 * CRLF line ends (RFC 5322 §2.1), .eml files included. nodemailer is loaded with the first mail:
 * most processes (a CLI command, a transcode runner, a server that sends nothing) never load it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { AppContext } from '../kernel/context.js';
import type { OutboxRow } from './outbox.js';

export interface MailTransport {
  /** Delivers one mail; throws when it was not accepted. */
  send(mail: OutboxRow): Promise<void>;
  close(): void;
}

/** How long one SMTP delivery may wait: for the connection, for the greeting, for a silent socket. */
export const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export function messageIdFor(key: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<${createHash('sha256').update(key).digest('hex').slice(0, 32)}@${domain}>`;
}

function messageOf(ctx: AppContext, mail: OutboxRow) {
  return {
    from: ctx.env.MAIL_FROM,
    to: mail.to_address,
    subject: mail.subject,
    text: mail.text_body,
    html: mail.html_body ?? undefined,
    messageId: messageIdFor(mail.key, ctx.env.MAIL_FROM),
    date: new Date(mail.created_at),
    headers: mail.headers ? (JSON.parse(mail.headers) as Record<string, string>) : undefined,
  };
}

/** The dev outbox's file of the mail with this outbox key. */
export function emlFileName(key: string): string {
  return `${key.replace(/[^\w.-]+/g, '_')}.eml`;
}

export function outboxDir(ctx: AppContext): string {
  return path.join(ctx.env.DATA_DIR, 'outbox');
}

/** A nodemailer transport made at its first use; `close` closes it if it was made. */
function lazyTransport(options: object): { get(): Promise<Transporter>; close(): void } {
  let made: Promise<Transporter> | undefined;
  return {
    get: () => {
      made ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options));
      return made;
    },
    close() {
      made?.then((t) => t.close()).catch(() => {});
    },
  };
}

export function createMailTransport(ctx: AppContext): MailTransport {
  if (ctx.env.SMTP_URL && ctx.env.MAIL_TRANSPORT !== 'outbox') {
    // Bounded waits (nodemailer's own are 2 and 10 minutes): a member's erasure waits for a delivery to
    // them that is under way (shredding/personalWrites.ts). Query parameters of SMTP_URL override these.
    const smtp = lazyTransport({ url: ctx.env.SMTP_URL, ...SMTP_TIMEOUTS });
    return {
      async send(mail) {
        await (await smtp.get()).sendMail(messageOf(ctx, mail));
      },
      close: () => smtp.close(),
    };
  }
  // CRLF line ends, as RFC 5322 §2.1 wants of a message (SMTP's DATA gets them from nodemailer's stream).
  const stream = lazyTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(mail) {
      const info = await (await stream.get()).sendMail(messageOf(ctx, mail));
      const dir = outboxDir(ctx);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      // A folder made by an older version (or another umask) is closed too.
      fs.chmodSync(dir, 0o700);
      const file = path.join(dir, emlFileName(mail.key));
      fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      fs.chmodSync(file, 0o600);
      // The key and the file, never the address (the log outlives an erasure).
      ctx.logger.info({ key: mail.key, file }, 'mail written to the outbox (MAIL_TRANSPORT=outbox or no SMTP_URL)');
    },
    close: () => stream.close(),
  };
}
