/**
 * WebSockets as a real client (`ws`) sees them, for the chat and show chat suites: the handshake's
 * answer, and an open socket with what it received and how it closed.
 */
import { WebSocket as WebSocketClient } from 'ws';

/** The origin of the site a socket URL belongs to: what its own pages send as `Origin`. */
export const siteOriginOf = (url: string) => new URL(url.replace(/^ws/, 'http')).origin;

/**
 * What a client naming `origin` (null: none) is answered when it opens `url`: 101 once the socket
 * is open (it is then closed), otherwise the refusal's status and body. A client that neither opens
 * nor is answered (an error) rejects, so no outcome passes for a refusal by default.
 */
export function handshake(url: string, origin: string | null = siteOriginOf(url)): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const client = new WebSocketClient(url, origin === null ? {} : { origin });
    client.on('open', () => {
      client.close();
      resolve({ status: 101, body: '' });
    });
    client.on('unexpected-response', (req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    client.on('error', reject);
  });
}

export interface OpenSocket<T> {
  /** Every message received so far, parsed. */
  received: T[];
  /** Waits until `n` messages have come (30 s at most: only to catch a hang). */
  next(n?: number): Promise<T[]>;
  /** The close code, once closed. */
  closed: Promise<number>;
  close(): void;
}

/** An open socket, named by `origin` (the site's own pages' by default); rejects when it is refused. */
export async function openSocket<T = unknown>(url: string, origin = siteOriginOf(url)): Promise<OpenSocket<T>> {
  const ws = new WebSocketClient(url, { origin });
  const received: T[] = [];
  const waiters: (() => void)[] = [];
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('message', (data) => {
    received.push(JSON.parse(String(data)) as T);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`socket ${url} refused: ${res.statusCode}`)));
  });
  return {
    received,
    async next(n = 1) {
      const deadline = Date.now() + 30_000;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} pushes, got ${received.length}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return received;
    },
    closed,
    close: () => ws.close(),
  };
}

/** `p`, or a rejection once `ms` have passed. */
export const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);
