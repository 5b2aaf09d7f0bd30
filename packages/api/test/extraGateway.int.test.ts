/**
 * The tests' second radosgw (scripts/rgwCluster.mjs startExtraGateway), which storeRestart kills:
 * it serves the cluster's buckets with the same keys, a SIGTERM or SIGKILL stops it (connections
 * refused), start() brings it back on the same port, and a SIGKILLed one is fenced, so it is no
 * longer a watcher of the gateways' notify object the shared gateway notifies on every bucket create
 * or delete (left there, each of those waited for the OSD's 30 s watch timeout).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExtraGateway, extraGateway, type FreshBucket, freshBucket, mediaKinds, TEST_S3 } from './s3.js';

/** The client addresses watching the gateways' first notify object. */
function watchers(): string[] {
  const conf = path.join(process.env.TEST_S3_CEPH_DIR as string, 'ceph.conf');
  const out = execFileSync('rados', ['-c', conf, '-p', 'default.rgw.control', 'listwatchers', 'notify.0'], { encoding: 'utf8' });
  return [...out.matchAll(/watcher=(\S+)/g)].map((m) => m[1] as string);
}

describe.runIf(mediaKinds().includes('s3'))('a second gateway in the tests’ Ceph cluster [s3]', () => {
  let bucket: FreshBucket;
  let gateway: ExtraGateway;

  beforeAll(async () => {
    bucket = await freshBucket();
    gateway = await extraGateway();
  });
  afterAll(async () => {
    await gateway?.close();
    await bucket?.cleanup();
  });

  const client = () =>
    new S3Client({
      endpoint: gateway.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: TEST_S3?.accessKey as string, secretAccessKey: TEST_S3?.secretKey as string },
      maxAttempts: 1,
    });
  const read = async () =>
    (await client().send(new GetObjectCommand({ Bucket: bucket.bucket, Key: 'probe.txt' }))).Body?.transformToString();

  it('serves the shared buckets; stops on SIGTERM and SIGKILL and comes back on its port; a killed one is fenced', async () => {
    expect(gateway.endpoint).not.toBe(TEST_S3?.endpoint);
    await client().send(new PutObjectCommand({ Bucket: bucket.bucket, Key: 'probe.txt', Body: 'through the second gateway' }));
    expect(await read()).toBe('through the second gateway');
    expect(watchers()).toContain(gateway.address());

    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const [pid, address] = [gateway.pid(), gateway.address()];
      expect(pid).toBeGreaterThan(0);
      expect(address).toMatch(/^127\.0\.0\.1:0\/\d+$/);
      await gateway.stop(signal);
      expect(gateway.pid()).toBeUndefined();
      await expect(fetch(gateway.endpoint)).rejects.toThrow();
      // Neither a clean stop nor a fenced kill leaves its watch behind.
      expect(watchers()).not.toContain(address);
      await gateway.start();
      expect(gateway.pid()).not.toBe(pid);
      expect(await read()).toBe('through the second gateway');
    }
  }, 120_000);
});
