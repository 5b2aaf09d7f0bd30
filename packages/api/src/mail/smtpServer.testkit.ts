/** Test-only: a real SMTP server (smtp-server) on a loopback port that keeps every message it accepts, raw. */
import { execFileSync } from 'node:child_process';
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

/**
 * A mail read by a parser nobody here wrote: Python's `email` package with `policy=email.policy.strict`
 * (raises on any defect), plus the count of bare LFs and lone CRs (RFC 5322 wants CRLF).
 */
const STRICT_PARSE = `
import email, email.policy, json, sys
raw = sys.stdin.buffer.read()
bare = [i for i in range(len(raw)) if raw[i:i+1] == b'\\n' and (i == 0 or raw[i-1:i] != b'\\r')]
lone_cr = [i for i in range(len(raw)) if raw[i:i+1] == b'\\r' and raw[i+1:i+2] != b'\\n']
msg = email.message_from_bytes(raw, policy=email.policy.strict)
body = msg.get_body(preferencelist=('plain',))
print(json.dumps({'bareLf': len(bare), 'loneCr': len(lone_cr), 'defects': [str(d) for d in msg.defects],
  'to': str(msg['to']), 'subject': str(msg['subject']), 'messageId': str(msg['message-id']),
  'headers': {k.lower(): str(v) for k, v in msg.items()},
  'text': body.get_content() if body is not None else None}))
`;

export interface StrictlyParsed {
  bareLf: number;
  loneCr: number;
  defects: string[];
  to: string;
  subject: string;
  messageId: string;
  /** Every header, names in lower case. */
  headers: Record<string, string>;
  text: string | null;
}

export const strictParse = (raw: Buffer): StrictlyParsed =>
  JSON.parse(execFileSync('python3', ['-c', STRICT_PARSE], { input: raw }).toString('utf8'));
