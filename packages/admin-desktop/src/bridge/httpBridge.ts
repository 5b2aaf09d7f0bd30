/**
 * The dev bridge: serves the built renderer over HTTP on loopback and exposes the same API the
 * preload gives Electron's renderer (`POST /bridge/invoke`, queue progress and the chat's live
 * feed as server-sent events on `GET /bridge/events`), forwarding to the same desktop service and therefore the same media
 * and upload-queue modules. It lets the renderer run in plain Chromium (Playwright tests, machines
 * without the Electron binary). Calls need the per-run token put in the served page and the
 * bridge's own Origin, so other local pages cannot drive it.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DesktopService } from '../main/desktopService.js';
import { readRendererFile } from '../main/rendererFiles.js';

export interface HttpBridgeOptions {
  service: DesktopService;
  /** The `vite build` output (dist/renderer). */
  rendererDir: string;
  host?: string;
  port?: number;
}

export interface HttpBridge {
  url: string;
  token: string;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('Body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Starts the bridge.
 * @example const bridge = await startHttpBridge({ service, rendererDir: 'dist/renderer' }); page.goto(bridge.url);
 */
export async function startHttpBridge(opts: HttpBridgeOptions): Promise<HttpBridge> {
  const token = randomBytes(24).toString('base64url');
  const events = new Set<http.ServerResponse>();
  let origin = '';

  const broadcast = (line: string) => {
    for (const res of events) res.write(line);
  };
  const unsubscribers = [
    opts.service.onUploadsChanged((snapshot) => broadcast(`data: ${JSON.stringify(snapshot)}\n\n`)),
    // The chat feed as named events (`chat`, `chat-state`), the main process's push channels.
    opts.service.chat.onMessage((message) => broadcast(`event: chat\ndata: ${JSON.stringify(message)}\n\n`)),
    opts.service.chat.onState((state) => broadcast(`event: chat-state\ndata: ${JSON.stringify(state)}\n\n`)),
    // The followed show chat room likewise (`show-chat`, `show-chat-state`).
    opts.service.showChat.onPush((push) => broadcast(`event: show-chat\ndata: ${JSON.stringify(push)}\n\n`)),
    opts.service.showChat.onState((state) => broadcast(`event: show-chat-state\ndata: ${JSON.stringify(state)}\n\n`)),
  ];

  const server = http.createServer(async function bridgeRequest(req, res) {
    try {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/bridge/invoke' && req.method === 'POST') {
        if (req.headers.origin !== origin || req.headers['x-bridge-token'] !== token)
          return json(res, 403, { ok: false, error: 'Refused' });
        let message: { channel?: unknown; payload?: unknown };
        try {
          message = JSON.parse(await readBody(req)) as typeof message;
        } catch {
          return json(res, 400, { ok: false, error: 'Invalid JSON' });
        }
        return json(res, 200, await opts.service.invoke(String(message.channel ?? ''), message.payload));
      }
      if (url.pathname === '/bridge/events' && req.method === 'GET') {
        if (url.searchParams.get('token') !== token) return json(res, 403, { ok: false, error: 'Refused' });
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
        res.write(': connected\n\n');
        events.add(res);
        req.on('close', () => events.delete(res));
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { ok: false, error: 'Method not allowed' });
      const file = await readRendererFile(opts.rendererDir, url.pathname, (html) =>
        html.replace('<head>', `<head>\n    <meta name="desktop-bridge-token" content="${token}" />`),
      );
      res.writeHead(file.status, file.headers);
      res.end(req.method === 'HEAD' ? undefined : file.body);
    } catch (err) {
      if (!res.headersSent) json(res, 500, { ok: false, error: (err as Error).message });
      else res.end();
    }
  });

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const addr = server.address() as AddressInfo;
  origin = `http://${opts.host ?? '127.0.0.1'}:${addr.port}`;

  return {
    url: origin,
    token,
    async close() {
      for (const off of unsubscribers) off();
      for (const res of events) res.end();
      events.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
