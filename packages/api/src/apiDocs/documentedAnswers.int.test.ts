/**
 * Real answers of the running app against the OpenAPI document, on both stores: the flows a member
 * and an admin go through (register, login, approval, catalog, upload, stream URL, payment request
 * and submission, verification, subscription, admin lists, stats, analytics, audit) and their usual
 * refusals. Every answer's status must be documented for its route and its JSON body must match
 * the documented schema (ajv over the served document), so a field the code adds, drops or
 * renames without the shared schema fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { documentedAnswers } from '../../test/documentedAnswers.js';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { generateSigningKeys } from '../audit/checkpoint.js';
import { HASH } from '../billing/billing.testkit.js';
import { makeMp4 } from '../media/media.testkit.js';

const fixtures = tmpDir('documented-answers-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

forEachStore('answers match the OpenAPI document', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof documentedAnswers>;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { AUDIT_SIGNING_KEY: generateSigningKeys().privateKey } });
    admin = await adminToken(server);
    const doc = (await apiClient(server.url).get('/openapi.json', admin)).body as never;
    api = documentedAnswers(doc, server.url);
  }, 60_000);
  afterAll(() => server?.close());

  it('a member from registration to streaming, an admin approving, verifying and reporting', async () => {
    const email = `documented-${kind}@example.test`;
    const password = 'member-password-123';

    // Public reads.
    await api.get('/health');
    await api.get('/site');
    await api.get('/geo/check');
    await api.get('/subscriptions/plans');

    // Registration and approval.
    const registration = { email, password, firstName: 'Docu', lastName: 'Mented', dateOfBirth: '1990-05-05', agreeToTerms: true };
    const reg = await api.post('/auth/register', registration);
    expect(reg.status).toBe(201);
    // A used address answers like a new one (docs/security.md, registration and enumeration).
    expect((await api.post('/auth/register', registration)).status).toBe(201);
    expect((await api.post('/auth/register', { ...registration, email: 'not-an-email' })).status).toBe(400);
    const userId = reg.body.data.user.id as string;
    expect((await api.post('/auth/login', { email, password: 'wrong-password' })).status).toBe(401);
    const pendingLogin = await api.post('/auth/login', { email, password });
    expect(pendingLogin.status).toBe(200);
    await api.get('/users/approval-status', pendingLogin.body.data.token);
    expect((await api.get('/admin/users/pending', admin)).status).toBe(200);
    expect((await api.get('/admin/users/pending', pendingLogin.body.data.token)).status).toBe(403);
    expect((await api.get('/admin/users/pending')).status).toBe(401);
    expect((await api.post(`/admin/users/${userId}/approve`, undefined, admin)).status).toBe(200);
    expect((await api.post(`/admin/users/${userId}/approve`, undefined, admin)).status).toBe(409);
    const login = await api.post('/auth/login', { email, password });
    const token = login.body.data.token as string;
    await api.get('/users/profile', token);
    expect((await api.put('/users/profile', { firstName: 'Doc' }, token)).status).toBe(200);
    await api.get('/auth/mfa', token);
    expect((await api.post('/auth/reset-password', { email })).status).toBe(200);

    // A video through the multipart upload; the catalog, the admin's view, an edit.
    const form = new FormData();
    form.set('title', 'Documented clip');
    form.set('accessLevel', 'premium');
    form.set('tags', 'one,two');
    form.set('video', new Blob([fs.readFileSync(await makeMp4(fixtures, 2))], { type: 'video/mp4' }), path.basename('clip.mp4'));
    const uploadRes = await fetch(`${server.url}/api/admin/upload-video`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
    const uploaded = { status: uploadRes.status, body: (await uploadRes.json()) as { success: boolean; data: { videoId: string } } };
    api.check('POST', '/admin/upload-video', uploaded);
    expect(uploaded.status).toBe(201);
    const videoId = uploaded.body.data.videoId as string;
    expect((await api.get('/videos?pageSize=5&sort=popular')).status).toBe(200);
    expect((await api.get('/videos?pageSize=500')).status).toBe(400);
    expect((await api.get(`/videos/${videoId}`)).status).toBe(200);
    expect((await api.get('/videos/no-such-video')).status).toBe(404);
    expect((await api.get('/admin/videos', admin)).status).toBe(200);
    expect((await api.get(`/admin/videos/${videoId}`, admin)).status).toBe(200);
    expect((await api.put(`/admin/videos/${videoId}`, { description: 'Now documented', tags: ['one'] }, admin)).status).toBe(200);
    expect((await api.put(`/admin/videos/${videoId}`, { role: 'admin' }, admin)).status).toBe(400);

    // Premium before paying: refused; then a payment request, a submission, a verification.
    expect((await api.get(`/videos/${videoId}/stream`, token)).status).toBe(403);
    expect((await api.get(`/videos/${videoId}/stream`)).status).toBe(401);
    expect((await api.get('/payments/subscription', token)).body.data).toBeNull();
    const intent = await api.post('/payments/create-subscription-intent', { planType: 'monthly' }, token);
    expect(intent.status).toBe(201);
    expect((await api.post('/subscriptions/create', { planId: 'monthly' }, token)).status).toBe(200);
    const submitted = await api.post(
      '/payments/submit-bitcoin-payment',
      { userId, planType: 'monthly', btcAmount: intent.body.data.btcAmount, transactionHash: HASH(`dc`) },
      token,
    );
    expect(submitted.status).toBe(201);
    const pending = await api.get('/admin/pending-payments', admin);
    expect(pending.body.data.count).toBe(1);
    await api.get('/admin/stats', admin);
    expect((await api.post(`/admin/payments/${intent.body.data.paymentId}/verify`, undefined, admin)).status).toBe(200);
    expect((await api.post(`/admin/payments/${intent.body.data.paymentId}/verify`, undefined, admin)).status).toBe(409);
    expect((await api.post('/admin/payments/no-such-payment/reject', { reason: 'No such payment' }, admin)).status).toBe(404);

    // The member's subscription and the stream.
    expect((await api.get('/payments/subscription', token)).body.data.status).toBe('active');
    await api.get('/subscriptions/current', token);
    const stream = await api.get(`/videos/${videoId}/stream`, token);
    expect(stream.status).toBe(200);
    expect((await api.post(`/videos/${videoId}/view`, { duration: 12 }, token)).status).toBe(200);
    expect((await api.post(`/videos/${videoId}/watch-time`, { seconds: 30 }, token)).status).toBe(200);
    expect((await api.post('/subscriptions/cancel', {}, token)).status).toBe(200);
    const subscriptionId = (await api.get('/payments/subscription', token)).body.data.id as string;
    expect((await api.post('/payments/reactivate-subscription', { subscriptionId }, token)).status).toBe(200);

    // The admin's reports.
    await api.get('/admin/stats', admin);
    await api.get('/admin/analytics?days=7', admin);
    await api.get('/admin/analytics?months=3', admin);
    await api.get('/admin/analytics/videos', admin);
    await api.get('/admin/audit/verify', admin);
    await api.get('/admin/audit/reconcile', admin);
    await api.get('/admin/audit/checkpoint', admin);
    await api.get('/admin/audit/payments?format=json', admin);
    await api.get('/admin/audit/replay?to=2100-01-01&format=json', admin);

    // The member's data export, then the member deletes the account.
    expect((await api.get('/users/me/export', token)).status).toBe(200);
    expect((await api.call('DELETE', '/users/me', { token, body: { password, confirmation: 'no' } })).status).toBe(400);
    expect((await api.call('DELETE', '/users/me', { token, body: { password, confirmation: 'DELETE' } })).status).toBe(200);

    // Deleting, logging out.
    expect((await api.del(`/admin/videos/${videoId}`, admin)).status).toBe(200);
    expect((await api.post('/auth/logout')).status).toBe(200);
    expect((await api.get('/no-such-route')).status).toBe(404);

    console.log(`[documented answers ${kind}] ${api.calls.length} answers checked`);
    expect(api.calls.length).toBeGreaterThan(50);
    expect(api.problems()).toEqual(['GET /no-such-route → 404: not in the document']);
  }, 120_000);

  it('the check catches a renamed field, a missing one, an extra one and an undocumented status', async () => {
    const plans = await apiClient(server.url).get('/subscriptions/plans');
    const checker = documentedAnswers((await apiClient(server.url).get('/openapi.json', admin)).body as never, server.url);
    const [first, ...rest] = plans.body.data.plans as Record<string, unknown>[];
    const { btcAmount, ...renamed } = first as Record<string, unknown>;
    const variants = [
      { ...plans.body.data, plans: [{ ...renamed, btcPrice: btcAmount }, ...rest] },
      { ...plans.body.data, plans: [renamed, ...rest] },
      { ...plans.body.data, extra: true },
    ];
    for (const data of variants) checker.check('GET', '/subscriptions/plans', { status: 200, body: { success: true, data } });
    checker.check('GET', '/subscriptions/plans', { status: 418, body: { success: false, error: 'teapot' } });
    checker.check('GET', '/subscriptions/plans', plans);
    expect(checker.calls.map((c) => Boolean(c.problem))).toEqual([true, true, true, true, false]);
  });
});
