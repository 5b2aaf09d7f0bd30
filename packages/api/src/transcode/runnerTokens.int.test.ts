/**
 * Runner tokens made and revoked by the admin over the API (the runners screen), on both stores and
 * the production configuration: the token is shown once and opens the runner API at once; a second
 * live token of one name is refused, also when two admins ask at the same moment; a revoked token is
 * refused by the runner API at its next call; members cannot make or revoke one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/harness';
import { adminToken, apiClient, approvedMember, startTestServer, type TestServer } from '../../test/support';

const heartbeat = (server: TestServer, token: string) =>
  fetch(`${server.url}/api/runners/heartbeat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runnerId: 'box:1:abcd', concurrency: 1, startedAt: new Date().toISOString(), jobs: [] }),
  });

for (const kind of storeKinds) {
  describe(`runner tokens from the admin's runners screen [${kind}]`, () => {
    let server: TestServer;
    let admin: string;

    beforeAll(async () => {
      server = await startTestServer(kind, { env: { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false', TRANSCODE_CONCURRENCY: '0' } });
      admin = await adminToken(server);
    }, 60_000);
    afterAll(async () => {
      await server?.close();
    });

    it('made once (shown once), refused for a taken name, revoked: the runner API refuses it at the next call', async () => {
      const api = apiClient(server.url);
      const made = await api.post('/admin/runners/tokens', { name: 'box-1' }, admin);
      expect(made.status).toBe(201);
      expect(made.body.data).toEqual({ name: 'box-1', token: expect.stringMatching(/^rnr_[A-Za-z0-9_-]{43}$/) });
      const token = made.body.data.token as string;
      expect((await heartbeat(server, token)).status).toBe(200);

      // Only its hash is kept: the list never shows it again.
      const listed = await api.get('/admin/runners', admin);
      expect(JSON.stringify(listed.body)).not.toContain(token);
      expect(listed.body.data.tokens).toEqual([
        expect.objectContaining({ name: 'box-1', revokedAt: null, lastUsedAt: expect.any(String) }),
      ]);

      const again = await api.post('/admin/runners/tokens', { name: 'box-1' }, admin);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'runner.token_name_taken' });

      const bad = await api.post('/admin/runners/tokens', { name: '../box' }, admin);
      expect(bad.status).toBe(400);
      expect(bad.body.success).toBe(false);

      const revoked = await api.del('/admin/runners/tokens/box-1', admin);
      expect(revoked.status).toBe(200);
      expect(revoked.body.data).toEqual({ name: 'box-1', revokedAt: expect.any(String) });
      const refused = await heartbeat(server, token);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ success: false, code: 'runner.token_invalid' });

      const twice = await api.del('/admin/runners/tokens/box-1', admin);
      expect(twice.status).toBe(404);
      expect(twice.body).toMatchObject({ success: false, code: 'runner.token_not_found' });

      // A revoked name can be made again: a new token, the old one still refused.
      const remade = await api.post('/admin/runners/tokens', { name: 'box-1' }, admin);
      expect(remade.status).toBe(201);
      expect(remade.body.data.token).not.toBe(token);
      expect((await heartbeat(server, remade.body.data.token)).status).toBe(200);
      expect((await heartbeat(server, token)).status).toBe(401);
    });

    it('two admins making one name at the same moment: one token, one 409', async () => {
      const api = apiClient(server.url);
      const answers = await Promise.all(Array.from({ length: 6 }, () => api.post('/admin/runners/tokens', { name: 'same-name' }, admin)));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      const live = (await api.get('/admin/runners', admin)).body.data.tokens.filter((t: { name: string }) => t.name === 'same-name');
      expect(live).toHaveLength(1);
      const winner = answers.find((a) => a.status === 201)?.body.data.token as string;
      expect((await heartbeat(server, winner)).status).toBe(200);
    });

    it('a member can neither make nor revoke one', async () => {
      const api = apiClient(server.url);
      const member = (await approvedMember(api)).token;
      expect((await api.post('/admin/runners/tokens', { name: 'mine' }, member)).status).toBe(403);
      expect((await api.del('/admin/runners/tokens/same-name', member)).status).toBe(403);
      expect((await api.post('/admin/runners/tokens', { name: 'mine' })).status).toBe(401);
      const live = (await api.get('/admin/runners', admin)).body.data.tokens.map((t: { name: string; revokedAt: string | null }) => [
        t.name,
        t.revokedAt,
      ]);
      expect(live).toEqual(expect.arrayContaining([['same-name', null]]));
      expect(live.map(([n]: [string]) => n)).not.toContain('mine');
    });
  });
}
