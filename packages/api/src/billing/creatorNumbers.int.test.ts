/**
 * The creator's numbers (issue 40 item 6) on SQLite and PostgreSQL, on the production configuration
 * over real HTTP: a history across three UTC calendar months (members subscribing monthly and
 * annual, verified payments, a renewal, a cancellation requested, withdrawn, requested again and
 * reaching its end, views and watch-time reports) driven through the API with the test clock; then
 * GET /api/admin/analytics?months=3 and GET /api/admin/analytics/videos must equal a count made
 * here straight from the event log (read through the store's `readAll`), before and after a
 * rebuild of the projections. And what an attacker tries: a member reading the analytics, watch
 * time for a video they may not watch, oversized, negative or fractional seconds, reports hammered
 * at one instant, both period parameters at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { rebuildProjections } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';
import { makeMp4 } from '../media/media.testkit.js';
import { TestClock } from '../shared/clock.testkit.js';
import { billingTestKit, HASH, type Member, seedMember } from './billing.testkit.js';
import { runLifecycle } from './subscriptions.service.js';

const fixtures = tmpDir('creator-numbers-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const DAY = 86_400_000;
const PLANS = ['monthly', 'annual'] as const;
const PRICE = { monthly: '0.0005', annual: '0.005' } as const;
let hashes = 9000;

/** When an event happened (the metadata's clock time, as the projections read it). */
const timeOf = (e: RecordedEvent) => (e.metadata as { at?: string }).at ?? e.recordedAt;

/**
 * The byPlan figures counted straight from the log, independently of the projections: each
 * subscription's activation, plan changes and end are replayed in order, then every month is
 * counted as docs/operations.md "Analytics" defines it.
 */
function countByPlan(events: RecordedEvent[], months: string[], now: Date) {
  type Membership = { startedAt: number; endedAt: number | null; plans: { at: number; plan: string }[] };
  const memberships = new Map<string, Membership>();
  const tally = new Map<string, number>();
  const bump = (month: string, plan: string, k: string, by = 1) =>
    tally.set(`${month}|${plan}|${k}`, (tally.get(`${month}|${plan}|${k}`) ?? 0) + by);
  for (const e of events) {
    const d = e.data as { subscriptionId: string; planType: string; amountSats: number };
    const at = timeOf(e);
    const month = at.slice(0, 7);
    if (e.type === 'PaymentVerified' && (d.planType === 'monthly' || d.planType === 'annual'))
      bump(month, d.planType, 'revenueSats', d.amountSats);
    if (e.type === 'SubscriptionActivated') {
      bump(month, d.planType, 'newMembers');
      memberships.set(d.subscriptionId, { startedAt: Date.parse(at), endedAt: null, plans: [{ at: Date.parse(at), plan: d.planType }] });
    }
    if (e.type === 'SubscriptionRenewed') {
      bump(month, d.planType, 'renewed');
      const m = memberships.get(d.subscriptionId);
      if (m && m.plans.at(-1)?.plan !== d.planType) m.plans.push({ at: Date.parse(at), plan: d.planType });
    }
    if (e.type === 'SubscriptionCanceled' || e.type === 'SubscriptionUnpaid') {
      const m = memberships.get(d.subscriptionId);
      if (m && m.endedAt === null) {
        m.endedAt = Date.parse(at);
        bump(month, m.plans.at(-1)?.plan ?? '', 'churned');
      }
    }
  }
  const rows = [];
  for (const month of months) {
    const start = Date.parse(`${month}-01T00:00:00.000Z`);
    const end = new Date(start).setUTCMonth(new Date(start).getUTCMonth() + 1);
    for (const plan of PLANS) {
      const planAt = (m: Membership, t: number) => m.plans.filter((p) => p.at < t).at(-1)?.plan;
      const active = [...memberships.values()].filter(
        (m) => m.startedAt < end && (m.endedAt === null || m.endedAt >= end) && planAt(m, end) === plan,
      );
      const lengths = [...memberships.values()]
        .filter((m) => m.startedAt < end && (m.endedAt === null || m.endedAt >= start) && planAt(m, end) === plan)
        .map((m) => Math.floor((Math.min(m.endedAt ?? end, end, now.getTime()) - m.startedAt) / DAY))
        .sort((a, b) => a - b);
      const mid = lengths.length >> 1;
      const median = lengths.length === 0 ? null : lengths.length % 2 ? lengths[mid] : ((lengths[mid - 1] ?? 0) + (lengths[mid] ?? 0)) / 2;
      const get = (k: string) => tally.get(`${month}|${plan}|${k}`) ?? 0;
      rows.push({
        month,
        plan,
        activeMembers: active.length,
        newMembers: get('newMembers'),
        churned: get('churned'),
        renewed: get('renewed'),
        medianMembershipDays: median,
        revenueSats: get('revenueSats'),
      });
    }
  }
  return rows;
}

/** Views and watch seconds per video from the log, for UTC days `from`..`to`. */
function countVideos(events: RecordedEvent[], from: string, to: string) {
  const out = new Map<string, { views: number; watchSeconds: number }>();
  for (const e of events) {
    const d = e.data as { videoId: string; viewedAt: string; at: string; seconds: number };
    const day = (e.type === 'ViewRecorded' ? d.viewedAt : d.at)?.slice(0, 10);
    if ((e.type !== 'ViewRecorded' && e.type !== 'WatchTimeRecorded') || day < from || day > to) continue;
    const v = out.get(d.videoId) ?? { views: 0, watchSeconds: 0 };
    if (e.type === 'ViewRecorded') v.views += 1;
    else v.watchSeconds += d.seconds;
    out.set(d.videoId, v);
  }
  return out;
}

forEachStore('creator numbers: analytics by plan and per video', (kind) => {
  let server: TestServer;
  let kit: Awaited<ReturnType<typeof billingTestKit>>;
  const clock = new TestClock(new Date('2026-01-05T10:00:00.000Z'));
  const videos = { free: '', premium: '' };
  const m: Record<'m1' | 'm2' | 'm3' | 'm4' | 'outsider', Member | undefined> = {
    m1: undefined,
    m2: undefined,
    m3: undefined,
    m4: undefined,
    outsider: undefined,
  };
  const member = (k: keyof typeof m) => m[k] as Member;

  async function pay(who: Member, plan: 'monthly' | 'annual') {
    const s = await kit.submit(who, { planType: plan, btcAmount: PRICE[plan], transactionHash: HASH(hashes++) });
    expect(s.status).toBe(201);
    expect((await kit.verify(s.body.data.paymentId)).status).toBe(200);
  }
  const watch = (who: Member, videoId: string, seconds: unknown) => kit.api.post(`/videos/${videoId}/watch-time`, { seconds }, who.token);
  const view = (who: Member, videoId: string) => kit.api.post(`/videos/${videoId}/view`, { duration: 12 }, who.token);
  const at = (iso: string) => clock.set(iso);

  beforeAll(async () => {
    server = await startTestServer(kind, {
      clock,
      env: { NODE_ENV: 'production', PUBLIC_URL: 'https://members.example.test', REQUIRE_ADMIN_2FA: 'false' },
    });
    kit = await billingTestKit(server);
    const mp4 = await makeMp4(fixtures, 2);
    for (const level of ['free', 'premium'] as const) {
      const copy = path.join(fixtures, `${kind}-${level}.mp4`);
      fs.copyFileSync(mp4, copy);
      const r = await ingestVideoFile(server.ctx, { filePath: copy, title: `${level} video`, accessLevel: level, actorId: 'admin' });
      if (!r.ok) throw new Error(r.error.message);
      videos[level] = r.videoId;
    }
    for (const k of Object.keys(m) as (keyof typeof m)[]) m[k] = await seedMember(server);

    // January: two monthly members and one annual; m3 cancels, withdraws it, cancels again.
    await pay(member('m1'), 'monthly');
    await pay(member('m2'), 'annual');
    at('2026-01-07T12:00:00.000Z');
    await pay(member('m3'), 'monthly');
    at('2026-01-10T12:00:00.000Z');
    expect((await kit.api.post('/subscriptions/cancel', {}, member('m3').token)).status).toBe(200);
    at('2026-01-12T12:00:00.000Z');
    const sub = (await kit.subscription(member('m3'))).body.data;
    expect((await kit.api.post('/payments/reactivate-subscription', { subscriptionId: sub.id }, member('m3').token)).status).toBe(200);
    at('2026-01-20T12:00:00.000Z');
    expect((await kit.api.post('/subscriptions/cancel', {}, member('m3').token)).status).toBe(200);
    at('2026-01-31T23:59:00.000Z');
    for (const who of ['m1', 'm2', 'm3'] as const) {
      expect((await view(member(who), videos.premium)).status).toBe(200);
      expect((await watch(member(who), videos.premium, 30)).status).toBe(200);
    }

    // February: m1 renews early, m3's cancellation reaches its end, m4 subscribes annual.
    at('2026-02-01T08:00:00.000Z');
    await pay(member('m1'), 'monthly');
    expect((await watch(member('m1'), videos.premium, 45)).status).toBe(200);
    at('2026-02-07T13:00:00.000Z');
    await runLifecycle(server.ctx);
    expect((await kit.user(member('m3')))?.membership_status).not.toBe('active');
    at('2026-02-10T09:00:00.000Z');
    await pay(member('m4'), 'annual');
    expect((await view(member('m4'), videos.free)).status).toBe(200);
    expect((await watch(member('m4'), videos.free, 60)).status).toBe(200);
    at('2026-02-10T09:00:20.000Z');
    expect((await watch(member('m4'), videos.free, 30)).body.data).toEqual({ recordedSeconds: 20 });
    // The creator's own previews are not members' views (issue 40): answered, never recorded.
    expect((await kit.api.post(`/videos/${videos.premium}/view`, { duration: 60 }, kit.admin)).body.data).toMatchObject({ counted: false });
    expect((await kit.api.post(`/videos/${videos.premium}/watch-time`, { seconds: 60 }, kit.admin)).body.data).toEqual({
      recordedSeconds: 0,
    });

    // March, the current month.
    at('2026-03-03T10:00:00.000Z');
    expect((await view(member('m2'), videos.free)).status).toBe(200);
    expect((await watch(member('m2'), videos.free, 15)).status).toBe(200);
  }, 120_000);
  afterAll(async () => server?.close());

  async function answers() {
    const byPlan = await kit.api.get('/admin/analytics?months=3', kit.admin);
    expect(byPlan.status).toBe(200);
    const perVideo = await kit.api.get('/admin/analytics/videos?from=2026-01-01&to=2026-02-28', kit.admin);
    expect(perVideo.status).toBe(200);
    return { byPlan: byPlan.body.data, perVideo: perVideo.body.data };
  }

  it('byPlan equals the count made from the event log, month by month and plan by plan', async () => {
    const { byPlan } = await answers();
    const events = await server.ctx.store.readAll();
    const counted = countByPlan(events, ['2026-01', '2026-02', '2026-03'], clock.now());
    expect(byPlan.from).toBe('2026-01');
    expect(byPlan.to).toBe('2026-03');
    expect(byPlan.byPlan.map(({ revenueBtc: _, ...rest }: { revenueBtc: string }) => rest)).toEqual(counted);
    // The history is what it says: the figures are not all zeros.
    const jan = (plan: string) => counted.find((r) => r.month === '2026-01' && r.plan === plan);
    const feb = (plan: string) => counted.find((r) => r.month === '2026-02' && r.plan === plan);
    expect(jan('monthly')).toMatchObject({ newMembers: 2, activeMembers: 2, churned: 0, revenueSats: 100_000 });
    expect(jan('annual')).toMatchObject({ newMembers: 1, activeMembers: 1, revenueSats: 500_000 });
    expect(feb('monthly')).toMatchObject({ renewed: 1, churned: 1, activeMembers: 1 });
    expect(feb('annual')).toMatchObject({ newMembers: 1, activeMembers: 2 });
    // Revenue in BTC is the satoshis as an exact decimal string.
    expect(byPlan.byPlan.find((r: { month: string; plan: string }) => r.month === '2026-01' && r.plan === 'annual').revenueBtc).toBe(
      '0.005',
    );
    expect(byPlan.byPlan.find((r: { month: string; plan: string }) => r.month === '2026-01' && r.plan === 'monthly').revenueBtc).toBe(
      '0.001',
    );
  });

  it('views and watch time per video equal the count made from the event log, most watched first', async () => {
    const { perVideo } = await answers();
    const counted = countVideos(await server.ctx.store.readAll(), '2026-01-01', '2026-02-28');
    expect(perVideo.videos).toEqual(
      [...counted]
        .map(([videoId, v]) => ({ videoId, title: videoId === videos.free ? 'free video' : 'premium video', ...v }))
        .sort((a, b) => b.watchSeconds - a.watchSeconds),
    );
    expect(counted.get(videos.premium)).toEqual({ views: 3, watchSeconds: 135 });
    expect(counted.get(videos.free)).toEqual({ views: 1, watchSeconds: 80 });
  });

  it('a rebuild of the projections gives the same figures', async () => {
    const before = await answers();
    await rebuildProjections(server.ctx.db, server.ctx.store, server.ctx.projections);
    expect(await answers()).toEqual(before);
  });

  it('a member reading the analytics gets 403; bad periods are 400 in the envelope', async () => {
    for (const url of ['/admin/analytics?months=3', '/admin/analytics?days=7', '/admin/analytics/videos'])
      expect((await kit.api.get(url, member('m1').token)).status).toBe(403);
    for (const url of [
      '/admin/analytics?months=0',
      '/admin/analytics?months=37',
      '/admin/analytics?months=x',
      '/admin/analytics?days=7&months=3',
      '/admin/analytics/videos?from=2026-02-30',
      '/admin/analytics/videos?from=2026-03-01&to=2026-02-01',
      '/admin/analytics/videos?from=2024-01-01&to=2026-01-01',
    ]) {
      const r = await kit.api.get(url, kit.admin);
      expect({ url, status: r.status, body: r.body }).toMatchObject({
        url,
        status: 400,
        body: { success: false, code: 'validation.invalid_body' },
      });
    }
    expect((await kit.api.get('/admin/analytics?days=7', kit.admin)).body.data.days).toHaveLength(7);
  });

  it('watch time: refused where the member may not watch; oversized, negative or fractional seconds are 400; hammering credits nothing', async () => {
    at('2026-03-03T11:00:00.000Z');
    const outsider = member('outsider');
    const refused = await watch(outsider, videos.premium, 30);
    expect({ status: refused.status, body: refused.body }).toMatchObject({
      status: 403,
      body: { success: false, code: 'access.subscription_required' },
    });
    expect((await kit.api.post(`/videos/${videos.premium}/watch-time`, { seconds: 30 })).status).toBe(401);
    for (const seconds of [61, -1, 2.5, '30', 1e9]) {
      const r = await watch(member('m2'), videos.free, seconds);
      expect({ seconds, status: r.status, body: r.body }).toMatchObject({
        seconds,
        status: 400,
        body: { success: false, code: 'validation.invalid_body' },
      });
    }
    expect((await watch(member('m2'), videos.free, 60)).body.data).toEqual({ recordedSeconds: 60 });
    for (let i = 0; i < 5; i++) expect((await watch(member('m2'), videos.free, 60)).body.data).toEqual({ recordedSeconds: 0 });
    // The member's data export holds their recorded reports, as the log has them.
    const exported = await kit.api.get('/users/me/export', member('m2').token);
    const reports = (await server.ctx.store.readAll())
      .filter((e) => e.type === 'WatchTimeRecorded' && (e.data as { userId: string }).userId === member('m2').id)
      .map((e) => {
        const { videoId, seconds, at } = e.data as { videoId: string; seconds: number; at: string };
        return { videoId, seconds, at };
      });
    expect(reports).toHaveLength(3);
    expect((exported.body as unknown as { watchTime: unknown }).watchTime).toEqual(reports);
    const today = await kit.api.get('/admin/analytics/videos?from=2026-03-03&to=2026-03-03', kit.admin);
    expect(today.body.data.videos).toEqual([{ videoId: videos.free, title: 'free video', views: 1, watchSeconds: 75 }]);
  });
});
