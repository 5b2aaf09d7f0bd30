// Shared by the media-tier benches (media-s3.mjs, runners.mjs): the object store and the database
// they run on. TEST_S3_ENDPOINT (+ TEST_S3_ACCESS_KEY / TEST_S3_SECRET_KEY) and TEST_DATABASE_URL
// name running ones, as for the tests; without them a throwaway Ceph RGW (scripts/rgwCluster.mjs)
// and PostgreSQL (scripts/pgCluster.mjs) are started here and stopped by `stop()`. Each bench gets
// its own bucket and database, removed at the end, so a shared gateway keeps nothing of it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startPgCluster } from '../../scripts/pgCluster.mjs';
import { startRgwCluster } from '../../scripts/rgwCluster.mjs';
import { ROOT } from './benchServer.mjs';

const requireApi = createRequire(path.join(ROOT, 'packages/api/package.json'));
/** The AWS SDK and pg the API itself uses (the bench's references call the same libraries). */
export const s3sdk = requireApi('@aws-sdk/client-s3');
export const { Upload } = requireApi('@aws-sdk/lib-storage');
export const { getSignedUrl } = requireApi('@aws-sdk/s3-request-presigner');
const pg = requireApi('pg');

/**
 * @param {{ database?: boolean }} [opts] `database`: a PostgreSQL database too.
 */
export async function startServices(opts = {}) {
  const stops = [];
  try {
    let s3;
    // The gateway's configuration, for its garbage collection (below): the tests' cluster folder, or ours.
    let cephConf = process.env.TEST_S3_CEPH_DIR ? path.join(process.env.TEST_S3_CEPH_DIR, 'ceph.conf') : undefined;
    if (process.env.TEST_S3_ENDPOINT) {
      s3 = {
        endpoint: process.env.TEST_S3_ENDPOINT,
        accessKey: process.env.TEST_S3_ACCESS_KEY ?? '',
        secretKey: process.env.TEST_S3_SECRET_KEY ?? '',
      };
    } else {
      const rgw = await startRgwCluster({ log: (l) => console.log(l) });
      stops.push(() => rgw.stop());
      console.log(`Ceph RGW started for the bench: ${rgw.endpoint} (ready in ${(rgw.readyMs / 1000).toFixed(1)} s)`);
      s3 = { endpoint: rgw.endpoint, accessKey: rgw.accessKey, secretKey: rgw.secretKey };
      cephConf = path.join(rgw.dir, 'ceph.conf');
    }
    const client = new s3sdk.S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey },
      // As the API's client (media/s3Store.ts): checksums only where an operation needs them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const bucket = `bench-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
    await client.send(new s3sdk.CreateBucketCommand({ Bucket: bucket }));
    stops.push(async () => {
      await emptyBucket(client, bucket);
      await client.send(new s3sdk.DeleteBucketCommand({ Bucket: bucket }));
      if (cephConf && process.env.TEST_S3_CEPH_DIR)
        spawnSync('radosgw-admin', ['-c', cephConf, 'gc', 'process', '--include-all'], { stdio: 'ignore', timeout: 120_000 });
    });

    let databaseUrl;
    if (opts.database) {
      let admin = process.env.TEST_DATABASE_URL;
      if (!admin) {
        const cluster = await startPgCluster();
        stops.push(() => cluster.stop());
        admin = cluster.url;
      }
      const name = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
      await withPg(admin, (c) => c.query(`CREATE DATABASE ${name}`));
      stops.push(() => withPg(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
      const url = new URL(admin);
      url.pathname = `/${name}`;
      databaseUrl = url.toString();
    }
    return {
      client,
      bucket,
      databaseUrl,
      /** The API's variables for this bucket. */
      env: {
        MEDIA_STORE: `s3://${bucket}`,
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: s3.accessKey,
        AWS_SECRET_ACCESS_KEY: s3.secretKey,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      /** One SQL statement on the bench's database (`$1` parameters): the rows. */
      query: async (text, params = []) => (await withPg(databaseUrl, (c) => c.query(text, params))).rows,
      /**
       * Removes every object under `prefix`, and has the gateway free their space at once: RGW keeps
       * a deleted object's data for its garbage collection (two hours by default), and the test
       * gateway's `memstore` (2 GiB of memory) fills and stops taking writes after a few hundred MB
       * uploaded per round. Without the cluster's folder (TEST_S3_CEPH_DIR) the space stays taken.
       */
      async empty(prefix = '') {
        await emptyBucket(client, bucket, prefix);
        if (cephConf && fs.existsSync(cephConf))
          spawnSync('radosgw-admin', ['-c', cephConf, 'gc', 'process', '--include-all'], { stdio: 'ignore', timeout: 120_000 });
      },
      async stop() {
        for (const s of stops.reverse()) await Promise.resolve(s()).catch((err) => console.error(`cleanup: ${err.message}`));
        stops.length = 0;
      },
    };
  } catch (err) {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => {});
    throw err;
  }
}

async function withPg(url, fn) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function emptyBucket(client, bucket, prefix = '') {
  for (;;) {
    const page = await client.send(new s3sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key }));
    if (keys.length) await client.send(new s3sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    if (!page.IsTruncated) break;
  }
  // tus's unfinished multipart uploads (none after a completed upload, but a failed run may leave some).
  const multi = await client.send(new s3sdk.ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }));
  for (const u of multi.Uploads ?? [])
    await client.send(new s3sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: u.Key, UploadId: u.UploadId })).catch(() => {});
}
