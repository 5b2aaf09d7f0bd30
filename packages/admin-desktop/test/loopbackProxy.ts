/**
 * A TCP proxy on loopback for the desktop's tests: it can limit upload bandwidth (client → server),
 * so that on a machine where loopback moves gigabytes a second a browser test can still watch
 * progress bars move, and it can cut its connections and refuse new ones (the network going away).
 */
import net from 'node:net';
import { Transform } from 'node:stream';

export interface LoopbackProxy {
  url: string;
  /** Ends every open connection and refuses new ones until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startLoopbackProxy(target: URL, opts: { bytesPerSecond?: number } = {}): Promise<LoopbackProxy> {
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const { bytesPerSecond } = opts;
    if (bytesPerSecond) {
      const throttle = new Transform({
        transform(chunk: Buffer, _enc, done) {
          setTimeout(() => done(null, chunk), (chunk.length / bytesPerSecond) * 1000);
        },
      });
      client.pipe(throttle).pipe(upstream);
    } else client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
