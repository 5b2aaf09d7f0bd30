/**
 * Answers given before the request body was read (a 413 from the Content-Length, a 401/403 on an
 * upload, a 429) must not break the client's keep-alive connection. HTTP/1.1 frames the next
 * request after this one's body, so the server either reads that body to its end or tells the
 * client it closes the connection and closes it cleanly (RFC 9112 §9.6, §9.3.2).
 *
 * Without this, @hono/node-server's own clean-up lost requests: its drain fights the paused
 * web-stream adapter of the body, gives up after 500 ms and closes a connection the client had
 * been told to keep, so the client's next request on it got no answer at all ("other side
 * closed", measured: 53 of 300 logins with one body in three of 0.6–6 MB).
 *
 * What this does, for every route, after the app has answered:
 * - no body (a GET), or the body already read to its end: nothing;
 * - body unread, declared (or so far) at most `DRAIN_MAX_BYTES` and arriving within
 *   `DRAIN_MAX_MS`: read and discarded before the answer is sent; the connection stays open;
 * - otherwise (a multi-GB upload refused with 401/413, a client trickling): the answer carries
 *   `Connection: close`, and the socket is closed the way nginx's lingering close does it: our
 *   half is shut after the answer (FIN, not RST), what the client still sends is read and
 *   discarded for up to `LINGER_MS`, then the socket is destroyed. A reset with unread bytes would
 *   make the client's kernel drop the answer it had not read yet.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
export const DRAIN_MAX_MS = 5_000;
export const LINGER_MS = 3_000;

interface NodeBindings {
  incoming?: IncomingMessage;
}
type FetchHandler<E> = (req: Request, env: E) => Response | Promise<Response>;

/** Wraps the fetch handler given to `@hono/node-server`'s `serve`. */
export function settleUnreadBodies<E>(fetch: FetchHandler<E>): FetchHandler<E> {
  return async (req, env) => {
    const res = await fetch(req, env);
    const incoming = (env as NodeBindings | undefined)?.incoming;
    if (!incoming || !hasBody(incoming) || incoming.readableEnded || incoming.destroyed) return res;
    const body = req.body;
    const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
    const discarder = body && !body.locked ? discard(body) : null;
    if (discarder && !(declared > DRAIN_MAX_BYTES)) {
      if (await discarder.ended(DRAIN_MAX_BYTES, DRAIN_MAX_MS)) return res;
    }
    lingerOnClose(incoming.socket, discarder);
    return withConnectionClose(res);
  };
}

/** RFC 9112 §6.3: a request has a body only with a Content-Length above 0 or a Transfer-Encoding. */
function hasBody(incoming: IncomingMessage): boolean {
  return Number(incoming.headers['content-length'] ?? 0) > 0 || incoming.headers['transfer-encoding'] !== undefined;
}

interface Discarder {
  /** Resolves true when the body ended within both bounds, false otherwise (reading goes on). */
  ended(maxBytes: number, maxMs: number): Promise<boolean>;
  stop(): void;
}

function discard(body: ReadableStream<Uint8Array>): Discarder {
  const reader = body.getReader();
  let bytes = 0;
  let stopped = false;
  const waiters = new Set<() => void>();
  const done = (async () => {
    try {
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) return true;
        bytes += value.byteLength;
        for (const w of waiters) w();
        if (stopped) return false;
      }
    } catch {
      return false; // the client went away: nothing left to read
    }
  })();
  return {
    ended(maxBytes, maxMs) {
      return new Promise<boolean>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const settle = (v: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(v);
        };
        const check = () => {
          if (bytes > maxBytes) settle(false);
        };
        waiters.add(check);
        timer = setTimeout(() => settle(false), maxMs);
        void done.then(settle);
      });
    },
    stop() {
      stopped = true;
      reader.cancel().catch(() => {});
    },
  };
}

/** Node calls `destroySoon()` after an answer marked `Connection: close`: make it a lingering close. */
function lingerOnClose(socket: Socket | null, discarder: Discarder | null): void {
  if (!socket || socket.destroyed) return;
  let lingering = false;
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (lingering) return;
    lingering = true;
    this.end();
    // Reading on, so the kernel does not answer the client's next bytes with a reset.
    if (!discarder) this.resume();
    const timer = setTimeout(() => {
      discarder?.stop();
      this.destroy();
    }, LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.once('end', () => this.destroy());
  };
}

function withConnectionClose(res: Response): Response {
  try {
    res.headers.set('Connection', 'close');
    return res;
  } catch {
    // Immutable headers (a Response from fetch): copy them.
    const headers = new Headers(res.headers);
    headers.set('Connection', 'close');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}
