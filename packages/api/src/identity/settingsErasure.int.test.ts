/**
 * Account settings meet erasure, over real HTTP on both stores: a member who changed their e-mail
 * (and asked for another change they never confirmed) and whose sessions carry a device name deletes
 * the account. None of the three addresses, the names or the device name is left in the store's
 * bytes (SQLite file and WAL, or a pg_dump) or the outbox; the settings routes refuse the erased
 * member's token and the old e-mail change link; the admin's member page shows the erasure without
 * any address.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, randomBytes, startTestServer, type TestServer } from '../../test/harness.js';
import { storeBytes } from '../../test/storeBytes.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { adminLogin, login, registerMember } from './identity.testkit.js';

forEachStore('account settings and erasure', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { PUBLIC_URL: 'https://members.example.test' } });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  const linkTo = async (email: string) => {
    const rows = await mailsTo(server, email);
    const match = /\/auth\/confirm-email\?token=(\S+)/.exec(rows.filter((r) => r.key.startsWith('email-change:')).at(-1)?.text_body ?? '');
    if (!match) throw new Error(`no e-mail change link to ${email}`);
    return decodeURIComponent(match[1] as string);
  };

  it('leaves none of the addresses the member used, nor their device, after they delete the account', async () => {
    // 16 hex digits: the tag alone is looked for in the store's bytes, which hold many hex ids and
    // hashes; 8 would turn up in them by chance about once in 50,000 runs.
    const tag = randomBytes(8).toString('hex');
    const first = `First.${tag}@Example.test`;
    const second = `second.${tag}@example.test`;
    const never = `never-confirmed.${tag}@example.test`;
    const device = `TagBrowser/${tag} (settings erasure test)`;
    const m = await registerMember(api, { email: first, firstName: `Ysolde${tag}`, lastName: `Varga${tag}` });
    const admin = await adminLogin(api);
    expect((await api.post(`/admin/users/${m.id}/approve`, undefined, admin.token)).status).toBe(200);
    const signed = await api.call('POST', '/auth/login', {
      body: { email: first, password: m.password },
      headers: { 'user-agent': device },
    });
    const token = signed.body.data.token as string;

    expect((await api.post('/users/me/email', { password: m.password, newEmail: second }, token)).status).toBe(200);
    expect((await api.post('/auth/email-change/confirm', { token: await linkTo(second) })).status).toBe(200);
    expect((await api.post('/users/me/email', { password: m.password, newEmail: never }, token)).status).toBe(200);
    const unused = await linkTo(never);
    expect((await api.get('/users/me/sessions', token)).body.data.sessions[0].userAgent).toBe(device);
    await server.subscribers.drain();
    expect(storeBytes(server.store)).toContain(second);

    const erased = await api.call('DELETE', '/users/me', { body: { password: m.password, confirmation: 'DELETE' }, token });
    expect(erased.status).toBe(200);

    // Gone from every door the settings page uses, and the pending change cannot finish.
    expect((await api.get('/users/me/sessions', token)).status).toBe(401);
    expect((await api.post('/users/me/password', { currentPassword: m.password, newPassword: 'x'.repeat(12) }, token)).status).toBe(401);
    expect((await api.post('/auth/email-change/confirm', { token: unused })).status).toBe(400);
    expect((await api.post('/auth/login', { email: second, password: m.password })).status).toBe(401);

    // No byte of the addresses, names or device is left in the store or the outbox.
    await server.subscribers.drain();
    const bytes = storeBytes(server.store);
    const outbox = JSON.stringify(await server.ctx.db.all('SELECT * FROM mail_outbox'));
    for (const needle of [first, first.toLowerCase(), second, never, `Ysolde${tag}`, `Varga${tag}`, tag]) {
      expect(bytes.includes(needle), `store bytes hold ${needle}`).toBe(false);
      expect(outbox.includes(needle), `outbox holds ${needle}`).toBe(false);
    }

    // The admin's member page shows the erasure, no address.
    const page = await api.get(`/admin/users/${m.id}/history`, admin.token);
    expect(page.status).toBe(200);
    expect(page.body.data.history.map((h: { summary: string }) => h.summary)).toEqual(
      expect.arrayContaining(['Registered', 'E-mail address changed', 'E-mail change requested', 'Erased']),
    );
    expect(JSON.stringify(page.body)).not.toContain(tag);

    // Both confirmed addresses are free for a new registration.
    await registerMember(api, { email: first });
    await login(api, first, 'member-password-1');
  });
});
