/**
 * The tests' S3: the throwaway Ceph RADOS Gateway `scripts/test.mjs` starts (scripts/rgwCluster.mjs),
 * named by TEST_S3_ENDPOINT / TEST_S3_ACCESS_KEY / TEST_S3_SECRET_KEY. Each test server gets a
 * fresh bucket, emptied and removed when it closes. Suites that claim S3 may not be skipped when
 * CI=true: without the gateway they fail.
 */
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { describe } from 'vitest';

export const TEST_S3 = process.env.TEST_S3_ENDPOINT
  ? {
      endpoint: process.env.TEST_S3_ENDPOINT,
      accessKey: process.env.TEST_S3_ACCESS_KEY ?? '',
      secretKey: process.env.TEST_S3_SECRET_KEY ?? '',
    }
  : undefined;

export type MediaKind = 'local' | 's3';

/** The media stores a suite can run against here: local always, S3 when the gateway runs. */
export function mediaKinds(): MediaKind[] {
  if (TEST_S3) return ['local', 's3'];
  if (process.env.CI === 'true')
    throw new Error('TEST_S3_ENDPOINT must be set in CI: the S3 suites may not be skipped (scripts/test.mjs starts Ceph RGW)');
  console.warn('TEST_S3_ENDPOINT not set: S3 variants of the suites are not run (run `pnpm test` to get a Ceph RGW)');
  return ['local'];
}

/** Runs `fn` once per media store, as `describe('<name> [local]')` and `describe('<name> [s3]')`. */
export function forEachMediaStore(name: string, fn: (kind: MediaKind) => void): void {
  for (const kind of mediaKinds()) describe(`${name} [${kind}]`, () => fn(kind));
}

/** A client on the tests' gateway (to look into buckets behind the server's back). */
export function testS3Client(): S3Client {
  if (!TEST_S3) throw new Error('TEST_S3_ENDPOINT is not set');
  return new S3Client({
    endpoint: TEST_S3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: TEST_S3.accessKey, secretAccessKey: TEST_S3.secretKey },
  });
}

/** Every key in `bucket` (under `prefix`). */
export async function bucketKeys(bucket: string, prefix = ''): Promise<string[]> {
  const client = testS3Client();
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

export interface FreshBucket {
  bucket: string;
  /** The server environment that points at it. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** A new, empty bucket on the tests' gateway, and the variables a server needs to use it. */
export async function freshBucket(prefix = ''): Promise<FreshBucket> {
  if (!TEST_S3) throw new Error('TEST_S3_ENDPOINT is not set');
  const bucket = `t-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const client = testS3Client();
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    bucket,
    env: {
      MEDIA_STORE: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      AWS_ENDPOINT_URL_S3: TEST_S3.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: TEST_S3.accessKey,
      AWS_SECRET_ACCESS_KEY: TEST_S3.secretKey,
    },
    async cleanup() {
      const keys = await bucketKeys(bucket).catch(() => []);
      for (let i = 0; i < keys.length; i += 1000)
        await client.send(
          new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })) } }),
        );
      await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {});
    },
  };
}

export type { ExtraGateway } from '../../../scripts/rgwCluster.mjs';

/**
 * A radosgw of the test's own in the tests' Ceph cluster (TEST_S3_CEPH_DIR, which scripts/test.mjs
 * exports), on its own port: the test may kill it and start it again; the shared gateway other
 * suites use is not touched. Close it in afterAll.
 */
export async function extraGateway(): Promise<import('../../../scripts/rgwCluster.mjs').ExtraGateway> {
  const dir = process.env.TEST_S3_CEPH_DIR;
  if (!dir) throw new Error("TEST_S3_CEPH_DIR is not set: the folder of the tests' Ceph cluster (scripts/test.mjs exports it)");
  const { startExtraGateway } = await import('../../../scripts/rgwCluster.mjs');
  return startExtraGateway(dir);
}
