/** Test-only: a real SMTP server (smtp-server) on a loopback port that keeps every message it accepts, raw. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The DATA section exactly as it came over the wire (dot-unstuffed by smtp-server, line ends untouched). */
  raw: Buffer;
  /** `performance.now()` when the last byte of the message had arrived (before the server's 250). */
  at: number;
}

export async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  const refusing = new Set<string>();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      // A permanent refusal naming the address, as real servers word it.
      if (refusing.delete(address.address.toLowerCase()))
        return callback(Object.assign(new Error(`<${address.address}>: Recipient address rejected: User unknown`), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks),
          at: performance.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The next delivery to this address is refused once (550, the address in the reply). */
    refuseOnce: (address: string) => refusing.add(address.toLowerCase()),
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
