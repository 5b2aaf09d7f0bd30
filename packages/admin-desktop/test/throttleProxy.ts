/**
 * A TCP proxy on loopback that limits upload bandwidth (client → server), so that on a machine
 * where loopback moves gigabytes a second the browser test can still watch progress bars move.
 */
import net from 'node:net';
import { Transform } from 'node:stream';

export interface ThrottleProxy {
  url: string;
  close(): Promise<void>;
}

export async function startThrottleProxy(target: URL, bytesPerSecond: number): Promise<ThrottleProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const throttle = new Transform({
      transform(chunk: Buffer, _enc, done) {
        setTimeout(() => done(null, chunk), (chunk.length / bytesPerSecond) * 1000);
      },
    });
    client.pipe(throttle).pipe(upstream);
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
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
