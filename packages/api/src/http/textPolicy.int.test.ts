/**
 * The text policy at the API's boundary (issue 44, finding 1), as the outside tester sent it, on
 * the production configuration, per store: control characters (NUL, BEL, ESC colour sequences, a
 * header injection), direction overrides and zero-width-only text are refused with a 400 envelope
 * (nothing appended) on every field a person types that others read: registration names, profile
 * names, member and admin chat messages, custom request descriptions and decline reasons; a
 * zero-width space inside a name is stripped. (Caption labels: catalog/captions.int.test.ts; staff
 * display names: identity/staff.int.test.ts; the live show's chat room: live/showChat.int.test.ts.)
 * What staff type that members or the record show: live show titles and descriptions, video titles,
 * descriptions, models and tags (upload and edit), the reasons of a rejection, a suspension and an
 * erasure, and a payment's rejection and verification override. And the admin's bound beside it (finding 5): a custom request quote above the site's
 * ceiling is refused.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { billingTestKit, HASH, type Member, seedMember } from '../billing/billing.testkit.js';
import { registrationPayload } from '../identity/identity.testkit.js';
import { makeMp4 } from '../media/media.testkit.js';

const CONTROL = 'hi\u0000\u0007\u001b[31mred\u001b[0m\r\nX-Injected: yes';
const BIDI = 'abc\u202egnp.exe\u202c';
const ISOLATE = 'Team\u2067 · VIP\u2069';
const ZERO_WIDTH_ONLY = '\u200b\u200b\u200b';
/** [payload, the refusal's words] for a multi-line field whose empty message is `empty`. */
const attacks = (empty: string) =>
  [
    [CONTROL, 'must not contain control characters'],
    [BIDI, 'must not contain text direction override characters'],
    [ISOLATE, 'must not contain text direction override characters'],
    [ZERO_WIDTH_ONLY, empty],
  ] as const;

/** The three payloads refused on a field that may be empty (zero-width only is then just empty). */
const attacksOnOptional = attacks('').slice(0, 3);

let hashes = 44_400;
const fixtures = tmpDir('text-policy-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

forEachStore('the text policy on every human-entered field', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: {
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://members.example.test',
        REQUIRE_ADMIN_2FA: 'false',
        AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000',
      },
    });
    kit = await billingTestKit(server);
  });
  afterAll(async () => server?.close());

  async function subscribed(planType: 'monthly' | 'annual'): Promise<Member> {
    const m = await seedMember(server);
    const s = await kit.submit(m, { planType, btcAmount: planType === 'monthly' ? '0.0005' : '0.005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }
  /** Each refused with a 400 envelope whose error carries the rule's words, and nothing appended. */
  async function refusedAll(
    send: (payload: string) => Promise<{ status: number; body: any }>,
    cases: readonly (readonly [string, string])[],
  ) {
    const head = await server.ctx.store.headPosition();
    for (const [payload, words] of cases) {
      const r = await send(payload);
      expect([JSON.stringify(payload), r.status, r.body.success]).toEqual([JSON.stringify(payload), 400, false]);
      expect(r.body.code).toMatch(/^validation\./);
      expect(r.body.error).toContain(words);
    }
    expect(await server.ctx.store.headPosition()).toBe(head);
  }

  it('registration: a control or direction character in a name is refused; a zero-width-only name is empty; a zero-width space inside is stripped', async () => {
    await refusedAll(
      (firstName) => kit.api.post('/auth/register', registrationPayload({ firstName })),
      [
        ['Admin\u202e\u0007', 'must not contain control characters'],
        ['Admin\u202e', 'must not contain text direction override characters'],
        ['Ann\r\nX-Injected: yes', 'must not contain control characters'],
      ],
    );
    await refusedAll((lastName) => kit.api.post('/auth/register', registrationPayload({ lastName })), [[BIDI, 'direction override']]);
    const empty = await kit.api.post('/auth/register', registrationPayload({ firstName: ZERO_WIDTH_ONLY }));
    expect(empty.status).toBe(400);
    expect(empty.body.success).toBe(false);
    const ok = await kit.api.post('/auth/register', registrationPayload({ firstName: 'An\u200bna', lastName: 'Zoe\u0308' }));
    expect(ok.status).toBe(201);
    expect(await server.ctx.db.get('SELECT first_name, last_name FROM users WHERE id = ?', [ok.body.data.user.id])).toEqual({
      first_name: 'Anna',
      last_name: 'Zo\u00eb',
    });
  });

  it('profile names: the same rule', async () => {
    const m = await seedMember(server);
    await refusedAll(
      (firstName) => kit.api.call('PUT', '/users/profile', { token: m.token, body: { firstName } }),
      [
        ['VIP · Admin\u202e', 'direction override'],
        ['Admin\u001b[2J', 'control characters'],
        [ZERO_WIDTH_ONLY, 'must not be empty'],
      ],
    );
  });

  it('chat: the member’s and the admin’s messages', async () => {
    const m = await subscribed('monthly');
    await refusedAll((text) => kit.api.post('/chat/messages', { text }, m.token), attacks('Message cannot be empty'));
    await refusedAll(
      (text) => kit.api.post(`/admin/chat/conversations/${m.id}/messages`, { text }, kit.admin),
      attacks('Message cannot be empty'),
    );
    expect((await kit.api.get('/chat/messages', m.token)).body.data.messages).toEqual([]);
    // Line breaks stay in a message (unified), and ordinary text passes.
    const sent = await kit.api.post('/chat/messages', { text: 'Hello\r\nthere \u200b' }, m.token);
    expect(sent.status).toBe(201);
    expect(sent.body.data.message.text).toBe('Hello\nthere');
  });

  it('custom requests: the description and the decline reason', async () => {
    const annual = await subscribed('annual');
    await refusedAll(
      (description) => kit.api.post('/custom-requests', { description }, annual.token),
      attacks('Please describe the video you would like'),
    );
    const asked = await kit.api.post('/custom-requests', { description: 'A video at the beach' }, annual.token);
    expect(asked.status).toBe(201);
    const id = asked.body.data.request.id as string;
    await refusedAll(
      (reason) => kit.api.post(`/admin/custom-requests/${id}/decline`, { reason }, kit.admin),
      attacks('Please give a reason for declining the request'),
    );
  });

  it('live shows: the title and the description members read', async () => {
    const show = (fields: Record<string, string>) =>
      kit.api.post(
        '/admin/live/shows',
        { title: 'Friday show', accessLevel: 'premium', startsAt: '2030-01-04T20:00:00Z', saveReplay: false, ...fields },
        kit.admin,
      );
    await refusedAll((title) => show({ title }), attacks('Please give the show a title'));
    await refusedAll((description) => show({ description }), attacksOnOptional);
    const ok = await show({ title: 'Friday\u200b show', description: 'Line one\r\nline two' });
    expect(ok.status).toBe(201);
    expect(ok.body.data.show).toMatchObject({ title: 'Friday show', description: 'Line one\nline two' });
  });

  it('videos: the upload’s and the edit’s title, description, model and tags', async () => {
    const video = await makeMp4(fixtures, 1);
    const upload = async (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries({ title: 'Beach day', ...fields })) form.append(k, v);
      form.append('video', await fs.openAsBlob(video, { type: 'video/mp4' }), 'clip.mp4');
      const res = await fetch(`${server.url}/api/admin/upload-video`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${kit.admin}` },
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    await refusedAll((title) => upload({ title }), attacks('Please provide at least a title and video file'));
    await refusedAll((description) => upload({ description }), attacksOnOptional);
    await refusedAll((model) => upload({ model }), attacksOnOptional);
    await refusedAll((tags) => upload({ tags: `beach, ${tags}` }), attacksOnOptional);
    const uploaded = await upload({ title: 'Beach\u200b day', description: 'Sun\r\nsand', tags: 'beach, sun\u200b' });
    expect(uploaded.status).toBe(201);
    const id = uploaded.body.data.videoId as string;
    const read = await kit.api.get(`/admin/videos/${id}`, kit.admin);
    expect(read.body.data).toMatchObject({ title: 'Beach day', description: 'Sun\nsand', tags: ['beach', 'sun'] });

    const edit = (body: Record<string, unknown>) => kit.api.call('PUT', `/admin/videos/${id}`, { token: kit.admin, body });
    await refusedAll((title) => edit({ title }), attacks('must not be empty'));
    await refusedAll((description) => edit({ description }), attacksOnOptional);
    await refusedAll((model) => edit({ model }), attacksOnOptional);
    await refusedAll((tag) => edit({ tags: ['beach', tag] }), attacksOnOptional);
  });

  it('the reasons staff give: a rejection’s, a suspension’s and an erasure’s', async () => {
    const pending = await seedMember(server, { approved: false });
    await refusedAll((reason) => kit.api.post(`/admin/users/${pending.id}/reject`, { reason }, kit.admin), attacksOnOptional);
    const member = await seedMember(server);
    await refusedAll((reason) => kit.api.post(`/admin/users/${member.id}/suspend`, { reason }, kit.admin), attacks('is required'));
    await refusedAll((reason) => kit.api.post(`/admin/users/${member.id}/erase`, { reason }, kit.admin), attacks('is required'));
    // A payment's: the rejection mailed to the member, and a verification's override; both in the audit's payment history.
    const payer = await seedMember(server);
    const submitted = await kit.submit(payer, { transactionHash: HASH(hashes++) });
    expect(submitted.status).toBe(201);
    const paymentId = submitted.body.data.paymentId as string;
    await refusedAll(
      (reason) => kit.api.post(`/admin/payments/${paymentId}/reject`, { reason }, kit.admin),
      attacks('Please give a reason for rejecting the payment'),
    );
    await refusedAll(
      (reason) => kit.api.post(`/admin/payments/${paymentId}/verify`, { override: { reason } }, kit.admin),
      attacks('Please say why you verify anyway'),
    );
  });

  it('custom requests: a quote above the site’s ceiling (1 BTC by default) is refused with a clear 400, the ceiling itself passes', async () => {
    const annual = await subscribed('annual');
    const id = (await kit.api.post('/custom-requests', { description: 'A video in the snow' }, annual.token)).body.data.request
      .id as string;
    const head = await server.ctx.store.headPosition();
    for (const btcAmount of ['21000001', '1.00000001']) {
      const r = await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount }, kit.admin);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        success: false,
        error: "btcAmount: must be at most 1 BTC (the site's customRequests.maxQuoteBtc)",
        code: 'validation.invalid_input',
      });
    }
    expect(await server.ctx.store.headPosition()).toBe(head);
    const atCeiling = await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount: '1' }, kit.admin);
    expect(atCeiling.status).toBe(200);
    expect(atCeiling.body.data.request).toMatchObject({ status: 'quoted', btcAmount: '1' });
  });
});
