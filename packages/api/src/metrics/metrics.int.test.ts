/**
 * /metrics over real HTTP on both stores: the listed series are present and move with real traffic
 * (a login, a catalog list, a video page, a ranged media fetch, registrations, an upload held open),
 * on the separate listener and behind the token; and never exposed without configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { adminStats } from '../admin/index.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { adminLogin, registerMember } from '../identity/identity.testkit.js';
import { makeMp4 } from '../media/media.testkit.js';
import { createTestUser } from '../streaming/viewers.testkit.js';
import { type Exposition, parseExposition } from './exposition.testkit.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const fixtures = tmpDir('metrics-fixtures-');

async function scrape(url: string, token?: string): Promise<Exposition> {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

forEachStore('metrics', (kind) => {
  describe('configured with a separate port and a token', () => {
    let server: TestServer;
    let api: ReturnType<typeof apiClient>;
    let videoId: string;

    beforeAll(async () => {
      server = await startTestServer(kind, { env: { METRICS_PORT: '0', METRICS_TOKEN: TOKEN } });
      api = apiClient(server.url);
      const admin = await createTestUser(server.ctx, { role: 'admin' });
      const r = await ingestVideoFile(server.ctx, {
        filePath: await makeMp4(fixtures, 2),
        title: 'Metrics clip',
        accessLevel: 'free',
        actorId: admin.id,
      });
      if (!r.ok) throw new Error(r.error.message);
      videoId = r.videoId;
    });
    afterAll(() => server?.close());

    it('serves the exposition on the metrics port (loopback) and on the main port with the token only', async () => {
      expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const onPort = await scrape(server.metricsUrl as string);
      expect(onPort.types.get('http_requests_total')).toBe('counter');
      const onMain = await scrape(server.url, TOKEN);
      expect(onMain.types.get('http_request_duration_seconds')).toBe('histogram');
      const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all-000' } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await wrong.json()).toMatchObject({ success: false });
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    });

    it('counts requests per route pattern, method and status class, never per raw URL', async () => {
      const before = await scrape(server.metricsUrl as string);
      const detail = { route: '/api/videos/:id', method: 'GET', status: '2xx' };
      const admin = await adminLogin(api);
      expect((await api.get('/videos')).status).toBe(200);
      expect((await api.get(`/videos/${videoId}`, admin.token)).status).toBe(200);
      expect((await api.get('/no-such-route-4242')).status).toBe(404);
      const after = await scrape(server.metricsUrl as string);
      expect(after.sum('http_requests_total', detail) - before.sum('http_requests_total', detail)).toBe(1);
      expect(after.sum('http_requests_total', { route: '/api/auth/login', method: 'POST', status: '2xx' })).toBeGreaterThanOrEqual(1);
      expect(after.sum('http_requests_total', { route: '/api/videos', method: 'GET', status: '2xx' })).toBeGreaterThanOrEqual(1);
      expect(after.sum('http_requests_total', { route: 'unmatched', status: '4xx' })).toBeGreaterThanOrEqual(1);
      const routes = new Set(after.find('http_requests_total').map((s) => s.labels.route));
      expect([...routes].some((r) => r?.includes(videoId) || r?.includes('no-such-route'))).toBe(false);
      const count = after.find('http_request_duration_seconds_count', detail)[0]?.value ?? 0;
      const inf = after.find('http_request_duration_seconds_bucket', { ...detail, le: '+Inf' })[0]?.value;
      expect(count).toBeGreaterThanOrEqual(1);
      expect(inf).toBe(count);
      expect(after.find('http_request_duration_seconds_sum', detail)[0]?.value).toBeGreaterThan(0);
    });

    it('counts the media bytes actually streamed for a range request', async () => {
      const admin = await adminLogin(api);
      const link = await api.get(`/videos/${videoId}/stream`, admin.token);
      expect(link.status).toBe(200);
      const streamUrl = new URL(link.body.data.streamUrl as string, server.url).toString();
      const before = (await scrape(server.metricsUrl as string)).sum('media_streamed_bytes_total');
      const res = await fetch(streamUrl, { headers: { range: 'bytes=100-1123' } });
      expect(res.status).toBe(206);
      expect((await res.arrayBuffer()).byteLength).toBe(1024);
      const after = await scrape(server.metricsUrl as string);
      expect(after.sum('media_streamed_bytes_total') - before).toBe(1024);
      expect(after.sum('http_requests_total', { route: '/api/media/videos/:id', status: '2xx' })).toBeGreaterThanOrEqual(1);
    });

    it('reports appends per store and their latency, subscriber lag, outbox depth and the dashboard figures', async () => {
      const before = await scrape(server.metricsUrl as string);
      const registered = [await registerMember(api), await registerMember(api), await registerMember(api)];
      await server.subscribers.drain();
      const after = await scrape(server.metricsUrl as string);
      const appended =
        after.sum('eventstore_appended_events_total', { store: kind }) - before.sum('eventstore_appended_events_total', { store: kind });
      expect(appended).toBeGreaterThanOrEqual(registered.length);
      expect(after.sum('eventstore_append_duration_seconds_count', { store: kind, outcome: 'ok' })).toBeGreaterThanOrEqual(
        appended > 0 ? 3 : 0,
      );
      expect(after.sum('eventstore_head_position')).toBe(await server.ctx.store.headPosition());
      const lag = after.find('eventstore_subscriber_lag_positions');
      expect(lag.length).toBeGreaterThanOrEqual(1);
      for (const s of lag) expect(s.value).toBe(0); // drained: every subscriber is at the head
      // The sender works concurrently, so the depth is bounded by the rows queued, not pinned.
      const queued = await server.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox');
      const depth = after.find('mail_outbox_unsent')[0]?.value ?? -1;
      expect(depth).toBeGreaterThanOrEqual(0);
      expect(depth).toBeLessThanOrEqual(Number(queued?.n ?? 0));
      // Only the three registrations wait for approval on this server (admins are created approved).
      expect(after.find('members_pending_approvals')[0]?.value).toBe(registered.length);
      const stats = await adminStats(server.ctx.db, server.ctx.clock.now());
      expect(after.find('billing_pending_payments')[0]?.value).toBe(stats.pendingPayments);
      expect(after.find('billing_active_subscriptions')[0]?.value).toBe(stats.activeSubscribers);
      expect(after.find('process_cpu_user_seconds_total')[0]?.value).toBeGreaterThan(0);
      expect(after.find('nodejs_heap_size_used_bytes')[0]?.value).toBeGreaterThan(0);
    });

    it('shows an upload in progress while its body is still arriving, and none after', async () => {
      const admin = await adminLogin(api);
      const gauge = async () => (await scrape(server.metricsUrl as string)).find('uploads_in_progress', { kind: 'multipart' })[0]?.value;
      expect(await gauge()).toBe(0);
      let send!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          send = c;
        },
      });
      send.enqueue(new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nHeld open\r\n'));
      const answer = fetch(`${server.url}/api/admin/upload-video`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'multipart/form-data; boundary=b' },
        body,
        duplex: 'half',
      } as RequestInit);
      for (let i = 0; i < 200 && (await gauge()) !== 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(await gauge()).toBe(1);
      send.enqueue(new TextEncoder().encode('--b--\r\n'));
      send.close();
      expect((await answer).status).toBe(400); // no video part
      expect(await gauge()).toBe(0);
    });
  });

  describe('not configured', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(kind);
    });
    afterAll(() => server?.close());

    it('answers 404 for /metrics on the main port, with or without a token, and opens no metrics port', async () => {
      expect(server.metricsUrl).toBeUndefined();
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    });
  });
});
