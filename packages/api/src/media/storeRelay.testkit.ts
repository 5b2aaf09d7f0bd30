/**
 * Test-only: a fresh bucket and a SQLite test server that reaches the tests' Ceph RGW through a
 * relay the test controls (cut, hold, count the bytes), for the suites that take the store away
 * from a running server, or measure what crosses to it, without touching the gateway other suites
 * share.
 */
import { startTestServer, type TestServer } from '../../test/harness.js';
import { type FreshBucket, freshBucket, TEST_S3 } from '../../test/s3.js';
import { type Relay, relay } from './relay.testkit.js';

export interface ServerBehindRelay {
  bucket: FreshBucket;
  link: Relay;
  server: TestServer;
  /** Stops the server, then the relay, then empties and removes the bucket. */
  close(): Promise<void>;
}

/**
 * @example const s = await serverBehindRelay({ env: { MEDIA_ACCEL: 'nginx' } }); s.link.cut(); … await s.close();
 */
export async function serverBehindRelay(
  opts: { prefix?: string; backpressure?: boolean; env?: Record<string, string> } = {},
): Promise<ServerBehindRelay> {
  const bucket = await freshBucket(opts.prefix);
  const link = await relay(new URL(TEST_S3?.endpoint as string), { backpressure: opts.backpressure });
  let server: TestServer;
  try {
    server = await startTestServer('sqlite', { env: { ...bucket.env, AWS_ENDPOINT_URL_S3: link.url, ...opts.env } });
  } catch (err) {
    await link.close();
    await bucket.cleanup();
    throw err;
  }
  return {
    bucket,
    link,
    server,
    close: async () => {
      await server.close();
      await link.close();
      await bucket.cleanup();
    },
  };
}
