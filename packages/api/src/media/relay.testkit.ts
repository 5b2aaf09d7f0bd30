/**
 * A TCP relay in front of the tests' Ceph RGW (the shared gateway is never stopped: a test that
 * needs the store to go away cuts the relay, and one that restarts a real gateway kills its own,
 * test/s3.ts extraGateway, with a relay only to pause bytes at a mark). `cut()` closes every
 * connection and refuses new ones until `restore()`; `hold()` stops passing bytes, in both
 * directions, until `release()`; `holdAfter(n)` does so once the store has sent n more bytes (so a
 * transcode reading its source through a presigned URL is certainly mid-file when the test acts);
 * `traffic()` counts the bytes that crossed it (what a server fetched from the store, and sent).
 */
import net from 'node:net';

export interface Relay {
  url: string;
  cut(): void;
  restore(): void;
  /** Holds once `bytes` more have passed: sent by the store (`down`, default) or to it (`up`). */
  holdAfter(bytes: number, direction?: 'down' | 'up'): void;
  hold(): void;
  isHeld(): boolean;
  release(): void;
  /** Bytes passed so far: sent by the store (`down`) and to it (`up`). */
  traffic(): { down: number; up: number };
  close(): Promise<void>;
}

/**
 * `backpressure`: pass bytes only as fast as the receiving side takes them (as a real network
 * does), so `traffic()` counts what a reader consumed rather than everything the store would send
 * on an open-ended range; off by default (the hold marks of the other suites count eagerly).
 */
export async function relay(target: URL, opts: { backpressure?: boolean } = {}): Promise<Relay> {
  let open = true;
  let held = false;
  const passed = { down: 0, up: 0 };
  const holdAt = { down: Number.POSITIVE_INFINITY, up: Number.POSITIVE_INFINITY };
  const sockets = new Set<net.Socket>();
  const paused = new Set<net.Socket>();
  const pause = (socket: net.Socket) => {
    socket.pause();
    paused.add(socket);
  };
  const holdAll = () => {
    held = true;
    holdAt.down = Number.POSITIVE_INFINITY;
    holdAt.up = Number.POSITIVE_INFINITY;
    for (const s of sockets) pause(s);
  };
  /** Copies `from` to `to`, honouring hold and the hold marks. */
  const pump = (from: net.Socket, to: net.Socket, way: 'down' | 'up') => {
    from.on('data', (chunk: Buffer) => {
      if (!held && passed[way] + chunk.length >= holdAt[way]) {
        // Pass what is left before the mark, keep the rest until release().
        const pass = Math.max(0, holdAt[way] - passed[way]);
        to.write(chunk.subarray(0, pass));
        passed[way] += pass;
        holdAll();
        from.unshift(chunk.subarray(pass));
        return;
      }
      const flowing = to.write(chunk);
      passed[way] += chunk.length;
      if (held) pause(from);
      else if (!flowing && opts.backpressure) {
        from.pause();
        to.once('drain', () => !held && from.resume());
      }
    });
    from.on('end', () => to.end());
  };
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => {
        sockets.delete(s);
        paused.delete(s);
        for (const o of [client, upstream]) o.destroy();
      });
      s.on('error', () => {});
    }
    pump(client, upstream, 'up');
    pump(upstream, client, 'down');
    if (held) for (const s of [client, upstream]) pause(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    holdAfter(bytes, direction = 'down') {
      holdAt[direction] = passed[direction] + bytes;
    },
    hold: holdAll,
    isHeld: () => held,
    traffic: () => ({ ...passed }),
    release() {
      held = false;
      for (const s of paused) s.resume();
      paused.clear();
    },
    close() {
      // Keep-alive connections of the server's S3 client would hold close() open: end them.
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
