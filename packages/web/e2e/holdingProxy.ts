/**
 * A reverse proxy in front of a test server that can hold chosen requests until the test lets
 * them go: a race in the page (an action before a resource has arrived) made to happen every time
 * rather than on a slow machine only. Plain HTTP forwarding, and WebSocket upgrades piped through.
 */
import http from 'node:http';
import net from 'node:net';

export interface Hold {
  /** Resolves with the path once a matching request has arrived (and is being held). */
  requested: Promise<string>;
  /** Forwards the held request (and any later matching one). */
  release(): void;
  /** Answers the held request (and any later matching one) with `status` and no body. */
  refuse(status: number): void;
}

export interface HoldingProxy {
  url: string;
  port: number;
  /** Holds the next requests whose path matches `pattern` until `release()`. */
  hold(pattern: RegExp): Hold;
  close(): Promise<void>;
}

/** Starts the proxy on `port` (0: any) in front of `target` (`http://host:port`). */
export async function holdingProxy(target: string, port = 0): Promise<HoldingProxy> {
  const to = new URL(target);
  interface Held {
    pattern: RegExp;
    /** Set once the test decided: every matching request is then forwarded, or refused with this status. */
    outcome?: 'forward' | number;
    waiting: ((outcome: 'forward' | number) => void)[];
    seen: (path: string) => void;
  }
  const holds: Held[] = [];
  const settle = (h: Held, outcome: 'forward' | number) => {
    h.outcome = outcome;
    for (const go of h.waiting.splice(0)) go(outcome);
  };

  const forward = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const upstream = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };

  const answer = (req: http.IncomingMessage, res: http.ServerResponse, outcome: 'forward' | number) => {
    if (outcome === 'forward') return forward(req, res);
    req.resume();
    res.writeHead(outcome, { 'content-length': '0', 'cache-control': 'no-store' }).end();
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    // The newest hold decides: a later test's hold takes over from an earlier one's refusal.
    const hold = holds.findLast((h) => h.outcome !== 'forward' && h.pattern.test(path));
    if (!hold) return forward(req, res);
    hold.seen(path);
    if (hold.outcome !== undefined) return answer(req, res, hold.outcome);
    hold.waiting.push((outcome) => answer(req, res, outcome));
  });
  server.on('upgrade', (req, socket, head) => {
    const upstream = net.connect(Number(to.port), to.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as net.AddressInfo).port;

  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    hold(pattern) {
      let seen!: (path: string) => void;
      const requested = new Promise<string>((resolve) => (seen = resolve));
      const h: Held = { pattern, waiting: [], seen };
      holds.push(h);
      return { requested, release: () => settle(h, 'forward'), refuse: (status) => settle(h, status) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const h of holds) settle(h, 'forward');
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
