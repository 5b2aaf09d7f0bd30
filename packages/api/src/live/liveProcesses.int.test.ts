/**
 * Live shows beyond one machine (issue 43): two API processes on one PostgreSQL and one S3 bucket.
 * The ingest runs in the leader (A); the member asks B for the stream, and B serves the master, the
 * live playlist, the segments and the keys from the bucket: they decrypt and decode. Then the push
 * stops and B answers that the show has ended.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, storeKinds, type TestServer, tmpDir } from '../../test/harness';
import { mediaBinaries } from '../media/index';
import { createTestUser, grantPlanForTest, type TestViewer } from '../streaming/viewers.testkit';
import { freePort, pushRtmp, until } from './live.testkit';

const work = tmpDir('live-processes-');

// PostgreSQL is what several processes share (the harness refuses to run in CI without it).
describe.runIf(storeKinds.includes('postgres'))('live shows across two API processes [postgres, s3]', () => {
  let a: TestServer;
  let b: TestServer;
  let member: TestViewer;
  let pusher: ChildProcess | undefined;
  let rtmp: string;

  beforeAll(async () => {
    const port = await freePort();
    rtmp = `rtmp://127.0.0.1:${port}/live`;
    a = await startTestServer('postgres', { media: 's3', env: { LIVE_RTMP_PORT: String(port), LIVE_RTMP_HOST: '127.0.0.1' } });
    // B: the same database and bucket, a DATA_DIR of its own, no ingest of its own.
    const dataDirB = tmpDir('live-b-');
    b = await startTestServer('postgres', {
      store: {
        env: { ...a.store.env, DATA_DIR: dataDirB },
        dataDir: dataDirB,
        cleanup: async () => fs.rmSync(dataDirB, { recursive: true, force: true }),
      },
      bucket: a.bucket,
    });
    member = await createTestUser(a.ctx);
    await grantPlanForTest(a.ctx, member.id, 'annual');
  });
  afterAll(async () => {
    pusher?.kill('SIGKILL');
    await b?.close();
    await a?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('B serves the show A ingests, from the bucket: playlist, segments and keys decrypt and decode; B sees it end', async () => {
    const admin = await createTestUser(a.ctx, { role: 'admin' });
    const show = (
      await apiClient(b.url).call('POST', '/admin/live/shows', {
        token: admin.token,
        body: { title: 'Two processes', accessLevel: 'premium', startsAt: '2026-12-03T20:00:00Z', saveReplay: false },
      })
    ).body.data.show as { id: string; streamKey: string };
    pusher = pushRtmp(`${rtmp}/${show.streamKey}`, { seconds: 60 });
    const viaB = apiClient(b.url);
    const stream = await until(
      'B to hand out the live playlist',
      async () => (await viaB.call('GET', `/live/shows/${show.id}/stream`, { token: member.token })).body.data?.hlsUrl as string | null,
      20_000,
    );
    const master = await (await fetch(new URL(stream, b.url))).text();
    const mediaUrl = new URL(master.split('\n').find((l) => /^\d+p\//.test(l)) as string, new URL(stream, b.url));
    const playlist = await until(
      'two segments on B',
      async () => {
        const res = await fetch(mediaUrl);
        const text = res.status === 200 ? await res.text() : '';
        return text.split('\n').filter((l) => l.includes('.ts?')).length >= 2 && text;
      },
      30_000,
    );
    const key = Buffer.from(await (await fetch(new URL(/URI="([^"]+)"/.exec(playlist)?.[1] as string, b.url))).arrayBuffer());
    const sequence = Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1]);
    const segment = Buffer.from(
      await (await fetch(new URL(playlist.split('\n').find((l) => l.includes('.ts?')) as string, mediaUrl))).arrayBuffer(),
    );
    const iv = Buffer.alloc(16);
    iv.writeBigUInt64BE(BigInt(sequence), 8);
    const decipher = createDecipheriv('aes-128-cbc', key, iv);
    const file = path.join(work, 'segment.ts');
    fs.writeFileSync(file, Buffer.concat([decipher.update(segment), decipher.final()]));
    execFileSync(mediaBinaries().ffmpeg, ['-v', 'error', '-i', file, '-f', 'null', '-']);
    // Nothing of the show is on B's disk: it read the bucket.
    expect(fs.existsSync(path.join(b.ctx.env.DATA_DIR, 'live'))).toBe(false);
    pusher.kill('SIGINT');
    await until(
      'B to answer that the show has ended',
      async () =>
        (await viaB.call('GET', `/live/shows/${show.id}/stream`, { token: member.token })).body.data?.message === 'The show has ended',
      30_000,
    );
  });
});
