/**
 * An object store that goes down while the site runs: the server reaches the tests' Ceph RGW
 * through a TCP relay the test can cut (the gateway itself is shared by the suite). An upload while
 * it is cut is refused with 503 and a clear message, no video is recorded and nothing is left in
 * the bucket or on the disk; /api/health says the store is unreachable; with the relay back the
 * same upload succeeds; a read while it is cut is a 503 too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, type FreshBucket, mediaKinds } from '../../test/s3.js';
import { waitFor } from '../transcode/runners.testkit.js';
import { postUpload } from '../uploads/upload.testkit.js';
import { makeMp4 } from './media.testkit.js';
import type { Relay } from './relay.testkit.js';
import { MEDIA_STORE_UNAVAILABLE } from './storage.js';
import { type ServerBehindRelay, serverBehindRelay } from './storeRelay.testkit.js';

const fixtures = tmpDir('store-down-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : [];

describe.runIf(mediaKinds().includes('s3'))('the object store down during uploads [s3]', () => {
  let bucket: FreshBucket;
  let link: Relay;
  let server: TestServer;
  let setup: ServerBehindRelay | undefined;

  beforeAll(async () => {
    setup = await serverBehindRelay();
    ({ bucket, link, server } = setup);
  });
  afterAll(() => setup?.close());

  it('refuses the upload with 503 and publishes nothing, then takes it once the store is back', async () => {
    const token = await adminToken(server);
    const clip = await makeMp4(fixtures, 2);
    link.cut();
    const refused = await postUpload(server.url, token, { title: 'While down', accessLevel: 'free' }, { video: clip });
    expect([refused.status, refused.body]).toEqual([
      503,
      { success: false, error: MEDIA_STORE_UNAVAILABLE, code: 'media.store_unavailable' },
    ]);
    expect((await apiClient(server.url).get('/health', token)).body.data.media).toEqual({ kind: 's3', reachable: false });
    expect(await server.ctx.db.all('SELECT id FROM videos')).toEqual([]);
    // No scratch copy; only the ingest's marker, kept until the store answers and confirms nothing of it is there.
    const left = filesUnder(path.join(server.store.dataDir, 'media'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/\.ingest$/);

    link.restore();
    await waitFor(async () => (filesUnder(path.join(server.store.dataDir, 'media')).length === 0 ? true : undefined));
    expect(await bucketKeys(bucket.bucket)).toEqual([]);
    const taken = await postUpload(server.url, token, { title: 'Once back', accessLevel: 'free' }, { video: clip });
    expect(taken.status).toBe(201);
    expect(await bucketKeys(bucket.bucket)).toHaveLength(2);
    expect((await apiClient(server.url).get('/health', token)).body.data.media).toEqual({ kind: 's3', reachable: true });
    const thumbnail = `${server.url}/api/videos/${taken.body.data?.videoId}/thumbnail`;
    const up = await fetch(thumbnail);
    expect([up.status, (await up.arrayBuffer()).byteLength > 0]).toEqual([200, true]);

    // Reading while the store is down: 503 with the same message, not a 500 or a hang.
    link.cut();
    const down = await fetch(thumbnail);
    expect([down.status, await down.json()]).toEqual([
      503,
      { success: false, error: MEDIA_STORE_UNAVAILABLE, code: 'media.store_unavailable' },
    ]);
    link.restore();
  }, 120_000);
});
