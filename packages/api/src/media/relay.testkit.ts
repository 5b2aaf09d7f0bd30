/**
 * A TCP relay in front of the tests' Ceph RGW (the gateway is shared by the whole suite, so a test
 * that needs the store to go away cuts the relay, never the gateway). `cut()` closes every
 * connection and refuses new ones until `restore()`; `hold()` stops passing bytes, in both
 * directions, until `release()`; `holdAfter(n)` does so once the store has sent n more bytes (so a
 * transcode reading its source through a presigned URL is certainly mid-file when the test acts).
 */
import net from 'node:net';

export interface Relay {
  url: string;
  cut(): void;
  restore(): void;
  holdAfter(bytes: number): void;
  hold(): void;
  release(): void;
  /** Bytes sent from the store to the clients so far. */
  bytesDown(): number;
  close(): Promise<void>;
}

export async function relay(target: URL): Promise<Relay> {
  let open = true;
  let held = false;
  let holdAt = Number.POSITIVE_INFINITY;
  let down = 0;
  const sockets = new Set<net.Socket>();
  const paused = new Set<net.Socket>();
  const holdAll = () => {
    held = true;
    holdAt = Number.POSITIVE_INFINITY;
    for (const s of sockets) s.pause(), paused.add(s);
  };
  /** Copies `from` to `to`, honouring hold and throttle. */
  const pump = (from: net.Socket, to: net.Socket, counted: boolean) => {
    from.on('data', (chunk: Buffer) => {
      if (counted && !held && down + chunk.length >= holdAt) {
        // Pass what is left before the mark, keep the rest until release().
        const pass = Math.max(0, holdAt - down);
        to.write(chunk.subarray(0, pass));
        down += pass;
        holdAll();
        from.unshift(chunk.subarray(pass));
        return;
      }
      to.write(chunk);
      if (counted) down += chunk.length;
      if (held) from.pause(), paused.add(from);
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
    pump(client, upstream, false);
    pump(upstream, client, true);
    if (held) for (const s of [client, upstream]) s.pause(), paused.add(s);
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
    holdAfter(bytes) {
      holdAt = down + bytes;
    },
    hold: holdAll,
    release() {
      held = false;
      for (const s of paused) s.resume();
      paused.clear();
    },
    bytesDown: () => down,
    close() {
      // Keep-alive connections of the server's S3 client would hold close() open: end them.
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
