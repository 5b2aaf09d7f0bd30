/**
 * Custom video requests over real HTTP on both stores, on the production configuration (issue 30's
 * Done-when): a monthly member cannot request a video (403 with the reason, nothing written), an
 * annual one can; the admin quotes, the member pays (a payment to an address, pending for the
 * admin), the admin verifies it with the existing payment verification (request `paid`) and
 * delivers a transcoded video, which from then on only the requester (and admins) can find and
 * stream. The attacker, another annual member who held a stream of the video while it was public,
 * then gets 404/403 on its detail, stream URL, HLS playlists and key; the catalog lists it for the
 * requester only. The audit's reconciliation still finds no difference, and the payment is in the
 * payment history as a `custom` payment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CUSTOM_REQUESTS_NEED_ANNUAL } from '@members/ui/access';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { storeBytes } from '../../test/storeBytes.js';
import { reconcile } from '../audit/reconcile.js';
import { billingTestKit, HASH, type Member, seedMember } from '../billing/billing.testkit.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { makeSizedClip } from '../media/media.testkit.js';
import { TestClock } from '../shared/clock.testkit.js';

const fixtures = tmpDir('custom-requests-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));
let hashes = 7000;

async function waitTranscoded(server: TestServer, videoId: string): Promise<void> {
  for (;;) {
    const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [videoId]);
    if (row?.transcode_status === 'completed') return;
    expect(row?.transcode_status).not.toBe('failed');
    await new Promise((r) => setTimeout(r, 250));
  }
}

forEachStore('custom video requests', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  let clip: string;
  const clock = new TestClock(new Date('2026-06-01T10:00:00.000Z'));

  beforeAll(async () => {
    server = await startTestServer(kind, {
      clock,
      // The admin's second factor is the identity suites' subject; here the admin acts on requests.
      env: { NODE_ENV: 'production', REQUIRE_ADMIN_2FA: 'false', TRANSCODE_CONCURRENCY: '1', TRANSCODE_PRESET: 'ultrafast' },
    });
    kit = await billingTestKit(server);
    clip = await makeSizedClip(fixtures, { width: 320, height: 240, seconds: 2 });
  }, 120_000);
  afterAll(async () => server?.close());

  async function subscribed(planType: 'monthly' | 'annual'): Promise<Member> {
    const m = await seedMember(server);
    const s = await kit.submit(m, { planType, btcAmount: planType === 'monthly' ? '0.0005' : '0.005', transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
    return m;
  }
  const ask = (m: Member, description: string) => kit.api.post('/custom-requests', { description }, m.token);

  it('refuses a monthly member, a member without a plan and a signed-out visitor with the reason, writing nothing', async () => {
    const monthly = await subscribed('monthly');
    const none = await seedMember(server);
    const head = await server.ctx.store.headPosition();
    for (const m of [monthly, none]) {
      const r = await ask(m, 'A sunset video please');
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ success: false, error: CUSTOM_REQUESTS_NEED_ANNUAL, code: 'custom_request.not_annual' });
    }
    expect((await kit.api.post('/custom-requests', { description: 'x' })).status).toBe(401);
    expect(await server.ctx.store.headPosition()).toBe(head);
    expect((await kit.api.get('/custom-requests', monthly.token)).body.data).toEqual({ requests: [] });
  });

  it('takes an annual member’s request; refuses empty and too long descriptions with a 400', async () => {
    const annual = await subscribed('annual');
    for (const body of [{ description: '  ' }, { description: 'x'.repeat(2001) }, {}, { description: 7 }]) {
      const r = await kit.api.post('/custom-requests', body, annual.token);
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
    }
    const r = await ask(annual, '  A video at the beach  ');
    expect(r.status).toBe(201);
    expect(r.body.data.request).toMatchObject({ status: 'requested', description: 'A video at the beach', btcAmount: null, payment: null });
    expect(typeof r.body.data.request.id).toBe('string');
  });

  it('quotes, pays, verifies and delivers to the requester only; the attacker loses the video everywhere', async () => {
    const requester = await subscribed('annual');
    const attacker = await subscribed('annual');
    const admin = kit.admin;
    const created = await ask(requester, 'A video in the snow');
    const id = created.body.data.request.id as string;

    // Only admins see the queue and act on it; the member cannot pay before a quote.
    expect((await kit.api.get('/admin/custom-requests', requester.token)).status).toBe(403);
    expect((await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount: '0.002' }, attacker.token)).status).toBe(403);
    expect((await kit.api.post(`/custom-requests/${id}/pay`, {}, requester.token)).status).toBe(409);
    const queue = (await kit.api.get('/admin/custom-requests', admin)).body.data.requests;
    expect(queue.find((r: { id: string }) => r.id === id)).toMatchObject({ userId: requester.id, status: 'requested' });
    expect((await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount: 'lots' }, admin)).status).toBe(400);
    const quoted = await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount: '0.002' }, admin);
    expect(quoted.status).toBe(200);
    expect(quoted.body.data.request).toMatchObject({ status: 'quoted', btcAmount: '0.002' });

    // Another member cannot pay (or learn of) the request.
    expect((await kit.api.post(`/custom-requests/${id}/pay`, {}, attacker.token)).status).toBe(404);
    const paid = await kit.api.post(`/custom-requests/${id}/pay`, { transactionHash: HASH(hashes++) }, requester.token);
    expect(paid.status).toBe(201);
    const payment = paid.body.data.payment as { id: string; address: string; btcAmount: string };
    expect(payment.btcAmount).toBe('0.002');
    expect(payment.address).toMatch(/^(bc1|tb1|bcrt1)/);
    // Paying again answers the same open payment.
    const again = await kit.api.post(`/custom-requests/${id}/pay`, {}, requester.token);
    expect([again.status, again.body.data.payment.id]).toEqual([200, payment.id]);
    // It waits with the admins' pending payments, named as a custom request's.
    const pending = (await kit.pending()).body.data.payments;
    expect(pending.find((p: { id: string }) => p.id === payment.id)).toMatchObject({
      planType: 'custom',
      customRequestId: id,
      amountSats: 200_000,
    });
    // A payment is open: the request can no longer be declined or re-quoted.
    expect((await kit.api.post(`/admin/custom-requests/${id}/decline`, { reason: 'no' }, admin)).status).toBe(409);

    const subscriptionBefore = (await kit.subscription(requester)).body.data;
    const verified = await kit.verify(payment.id);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ paymentId: payment.id, status: 'verified', customRequestId: id });
    // A request payment pays for no plan: the subscription is as it was.
    expect((await kit.subscription(requester)).body.data).toEqual(subscriptionBefore);
    const mine = (await kit.api.get('/custom-requests', requester.token)).body.data.requests;
    expect(mine[0]).toMatchObject({ id, status: 'paid', payment: { id: payment.id, status: 'verified' } });
    expect((await kit.verify(payment.id)).status).toBe(409);

    // A published free video the attacker is watching…
    const adminRow = await server.ctx.db.get<{ id: string }>(`SELECT id FROM users WHERE role = 'admin'`);
    const copy = path.join(fixtures, `${id}.mp4`);
    fs.copyFileSync(clip, copy);
    const ingested = await ingestVideoFile(server.ctx, {
      filePath: copy,
      title: 'Snow',
      accessLevel: 'free',
      actorId: adminRow?.id ?? 'admin',
    });
    if (!ingested.ok) throw new Error(ingested.error.message);
    const videoId = ingested.videoId;
    await waitTranscoded(server, videoId);
    const api = apiClient(server.url);
    const held = await api.get(`/videos/${videoId}/stream`, attacker.token);
    expect(held.status).toBe(200);
    const master = new URL(held.body.data.hlsUrl, server.url);
    const masterRes = await fetch(master);
    expect(masterRes.status).toBe(200);
    const rendition = (await masterRes.text()).split('\n').find((l) => l.includes('index.m3u8')) as string;
    const media = new URL(rendition, master);
    const mediaRes = await fetch(media);
    expect(mediaRes.status).toBe(200);
    const keyLine = (await mediaRes.text()).split('\n').find((l) => l.startsWith('#EXT-X-KEY')) as string;
    const key = new URL(/URI="([^"]+)"/.exec(keyLine)?.[1] as string, media);
    expect((await fetch(key)).status).toBe(200);

    // …is delivered: only its requester (and admins) can see and stream it from now on.
    expect((await kit.api.post(`/admin/custom-requests/${id}/deliver`, { videoId: 'no-such-video' }, admin)).status).toBe(404);
    const delivered = await kit.api.post(`/admin/custom-requests/${id}/deliver`, { videoId }, admin);
    expect(delivered.status).toBe(200);
    expect(delivered.body.data.request).toMatchObject({ status: 'delivered', videoId });

    expect((await api.get(`/videos/${videoId}`, attacker.token)).status).toBe(404);
    expect((await api.get(`/videos/${videoId}`)).status).toBe(404);
    expect((await api.get(`/videos/${videoId}/stream`, attacker.token)).status).toBe(404);
    expect((await fetch(master)).status).toBe(404);
    expect((await fetch(media)).status).toBe(404);
    expect([403, 404]).toContain((await fetch(key)).status);
    const listed = async (token?: string) =>
      ((await api.get('/videos?pageSize=100', token)).body.data.videos as { id: string }[]).some((v) => v.id === videoId);
    expect(await listed(attacker.token)).toBe(false);
    expect(await listed()).toBe(false);

    expect(await listed(requester.token)).toBe(true);
    expect((await api.get(`/videos/${videoId}`, requester.token)).status).toBe(200);
    const own = await api.get(`/videos/${videoId}/stream`, requester.token);
    expect(own.status).toBe(200);
    expect((await fetch(new URL(own.body.data.hlsUrl, server.url))).status).toBe(200);
    expect((await api.get(`/videos/${videoId}`, admin)).status).toBe(200);

    // Its card's image: an <img> sends no token, so the requester's thumbnail path carries a grant
    // for them alone, never kept by a shared cache; the attacker gets nothing from it or around it.
    const card = (
      (await api.get('/videos?pageSize=100', requester.token)).body.data.videos as { id: string; thumbnailPath: string }[]
    ).find((v) => v.id === videoId) as { thumbnailPath: string };
    expect(card.thumbnailPath).toMatch(/\/thumbnail\?u=.+&e=\d+&s=/);
    const image = await fetch(new URL(card.thumbnailPath, server.url));
    expect(image.status).toBe(200);
    expect(image.headers.get('cache-control')).toBe('private, max-age=300');
    expect((await api.get(`/videos/${videoId}`, requester.token)).body.data.thumbnailPath).toBe(card.thumbnailPath);
    const thumb = `/api/videos/${videoId}/thumbnail`;
    expect((await fetch(new URL(thumb, server.url))).status).toBe(404);
    expect((await fetch(new URL(thumb, server.url), { headers: { authorization: `Bearer ${attacker.token}` } })).status).toBe(404);
    const forged = new URL(card.thumbnailPath, server.url);
    forged.searchParams.set('u', attacker.id);
    expect((await fetch(forged)).status).toBe(404);

    // The audit replays the request payment with the rest: no difference.
    const report = await reconcile(server.ctx.db, server.ctx.store);
    expect(report.differences).toEqual([]);
    expect(report.replayed.verifiedPayments).toBeGreaterThan(0);

    // The image's grant ends within 12 hours.
    clock.advance(13 * 3600 * 1000);
    expect((await fetch(new URL(card.thumbnailPath, server.url))).status).toBe(404);
  }, 180_000);

  it('declines a request with a reason, which its member reads; a declined request cannot be quoted', async () => {
    const annual = await subscribed('annual');
    const id = (await ask(annual, 'Something odd')).body.data.request.id as string;
    expect((await kit.api.post(`/admin/custom-requests/${id}/decline`, { reason: ' ' }, kit.admin)).status).toBe(400);
    const declined = await kit.api.post(`/admin/custom-requests/${id}/decline`, { reason: 'Not something we film' }, kit.admin);
    expect(declined.body.data.request).toMatchObject({ status: 'declined', declineReason: 'Not something we film' });
    expect((await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount: '0.001' }, kit.admin)).status).toBe(409);
    expect((await kit.api.get('/custom-requests', annual.token)).body.data.requests[0]).toMatchObject({ id, status: 'declined' });
  });

  it('exports the member’s requests, and their erasure leaves none of their descriptions in the store’s bytes', async () => {
    const annual = await subscribed('annual');
    const secret = `request-secret-${Date.now().toString(36)}`;
    const id = (await ask(annual, secret)).body.data.request.id as string;
    expect((await kit.api.post(`/admin/custom-requests/${id}/quote`, { btcAmount: '0.001' }, kit.admin)).status).toBe(200);
    const exported = await kit.api.get('/users/me/export', annual.token);
    expect(exported.status).toBe(200);
    const { customRequests } = exported.body as unknown as { customRequests: { id: string; description: string; amountSats: number }[] };
    expect(customRequests).toEqual([expect.objectContaining({ id, description: secret, status: 'quoted', amountSats: 100_000 })]);
    // Sealed in the log: the description is not in clear in the event's stored data.
    const stored = await server.ctx.rawStore.readStream(`custom-request-${id}`);
    expect(JSON.stringify(stored.map((e) => e.data))).not.toContain(secret);
    expect((await kit.api.post(`/admin/users/${annual.id}/erase`, { reason: 'verified request' }, kit.admin)).status).toBe(200);
    const bytes = storeBytes(server.store);
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(bytes.includes(secret)).toBe(false);
    // The request's shape stays for the auditors; its text reads empty.
    expect(await server.ctx.db.get('SELECT description, status, amount_sats FROM custom_requests WHERE id = ?', [id])).toEqual({
      description: '',
      status: 'quoted',
      amount_sats: 100_000,
    });
  });
});
