/**
 * A revoked runner token's file URLs (issue 44, finding 4), as an attacker holding them would try,
 * on the production configuration with the local media store (whose signed routes the API answers),
 * per store: the token claims a job and is given the URL of its original and an upload URL for its
 * ladder; both work; the admin revokes the token; from the very next request both answer 401
 * (`runner.token_invalid`), the job is back in the queue at once (no lease left to lapse), and
 * another token's runner claims it under a new attempt.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/harness';
import { adminToken, apiClient, makeSizedClip, postUpload, startTestServer, type TestServer, tmpDir } from '../../test/support';
import { createRunnerToken } from './runnerTokens';
import { jobOf } from './transcodeJobs';

const runnerCall = (server: TestServer, route: string, token: string, body: unknown) =>
  fetch(`${server.url}/api/runners/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface RemoteJob {
  videoId: string;
  claimAttempt: number;
  sourceUrl: string;
}

async function claimWhenQueued(server: TestServer, token: string, runnerId: string): Promise<RemoteJob> {
  const end = Date.now() + 30_000;
  for (;;) {
    const r = (await (await runnerCall(server, 'jobs/claim', token, { runnerId })).json()) as { data: { job: RemoteJob | null } };
    if (r.data.job) return r.data.job;
    if (Date.now() > end) throw new Error('no job was queued within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const kind of storeKinds) {
  describe(`a revoked runner token's file URLs [${kind}]`, () => {
    let server: TestServer;
    let admin: string;
    let home: string;

    beforeAll(async () => {
      server = await startTestServer(kind, {
        media: 'local',
        // Nothing transcodes in the server; a long lease, so only the revocation can end it.
        env: { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false', TRANSCODE_CONCURRENCY: '0', TRANSCODE_LEASE_SECONDS: '600' },
      });
      admin = await adminToken(server);
      home = tmpDir('members-revoked-runner-');
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      if (home) fs.rmSync(home, { recursive: true, force: true });
    });

    it('answer 401 from the next request, and the job is requeued at once', async () => {
      const api = apiClient(server.url);
      const made = await createRunnerToken(server.ctx.db, 'leaky-box', server.clock.now().toISOString());
      if (!made.ok) throw new Error(made.error);
      const clip = await makeSizedClip(home, { width: 320, height: 240, seconds: 1 });
      const up = await postUpload(server.url, admin, { title: 'Revoked runner clip', accessLevel: 'free' }, { video: clip });
      expect(up.status).toBe(201);
      const videoId = up.body.data.videoId as string;

      // The upload's job is queued by a subscriber after the 201 (on PostgreSQL a moment later): claim it once it is there.
      const job = await claimWhenQueued(server, made.token, 'leaky:1:0000');
      expect(job.videoId).toBe(videoId);
      const ref = { runnerId: 'leaky:1:0000', claimAttempt: job.claimAttempt };
      const uploads = (await (
        await runnerCall(server, `jobs/${videoId}/uploads`, made.token, { ...ref, files: ['master.m3u8'] })
      ).json()) as {
        data: { uploads: { url: string }[] };
      };
      const source = new URL(job.sourceUrl, server.url);
      const upload = new URL(uploads.data.uploads[0]?.url as string, server.url);
      const put = () => fetch(upload, { method: 'PUT', body: '#EXTM3U\n', headers: { 'content-type': 'application/vnd.apple.mpegurl' } });

      const read = await fetch(source);
      expect(read.status).toBe(200);
      await read.arrayBuffer();
      expect((await put()).status).toBe(200);

      const revoked = await api.del('/admin/runners/tokens/leaky-box', admin);
      expect(revoked.status).toBe(200);

      // The lease is ended by the revocation itself, not left to lapse.
      expect(await jobOf(server.ctx.db, videoId)).toMatchObject({ state: 'queued', worker: null, lease_expires_at: null });
      for (const attempt of [() => fetch(source), put]) {
        const r = await attempt();
        expect(r.status).toBe(401);
        expect(await r.json()).toMatchObject({ success: false, code: 'runner.token_invalid' });
      }
      // Naming another, live token in the URL does not revive it: the token name is signed.
      const other = await createRunnerToken(server.ctx.db, 'honest-box', server.clock.now().toISOString());
      if (!other.ok) throw new Error(other.error);
      const forged = new URL(source);
      forged.searchParams.set('t', 'honest-box');
      expect((await fetch(forged)).status).toBe(403);

      // Another runner takes the job over under a new attempt; the old URLs stay dead.
      const again = (await (await runnerCall(server, 'jobs/claim', other.token, { runnerId: 'honest:1:0000' })).json()) as {
        data: { job: RemoteJob | null };
      };
      expect(again.data.job).toMatchObject({ videoId, claimAttempt: job.claimAttempt + 1 });
      expect((await fetch(source)).status).toBe(401);
      const keys = await server.ctx.media.listVideo(videoId);
      expect(keys.filter((k) => k.includes('/hls/'))).toEqual([]);
    }, 120_000);
  });
}
