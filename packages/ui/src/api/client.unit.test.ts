import { describe, expect, it, vi } from 'vitest';
import { ApiError, createApiClient, toAnalyticsPoints } from './client';
import { isMfaChallenge, SECOND_FACTOR_ENROLMENT_REQUIRED } from './secondFactor';
import { createSessionStore } from './session';
import type { User } from './types';

/** A member as the API answers one (the shared `User` type: every field the server sends). */
const USER: User = {
  id: 'u1',
  email: 'a@b.c',
  firstName: 'Ada',
  lastName: 'Byron',
  role: 'member',
  staffRole: null,
  status: 'approved',
  approved: true,
  emailVerified: true,
  membershipStatus: 'inactive',
  subscriptionStatus: null,
  registrationDate: '2026-11-01T00:00:00.000Z',
  createdAt: '2026-11-01T00:00:00.000Z',
  geoLocation: null,
};

/** A Storage in memory (node has no localStorage). */
function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

function jwt(expSeconds: number): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'HS256' })}.${b64({ sub: 'u1', exp: expSeconds })}.sig`;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function setup(responses: Array<(url: string, init: RequestInit) => Response>) {
  const storage = memoryStorage();
  const session = createSessionStore(storage);
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchMock = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    const next = responses.shift();
    if (!next) throw new Error(`unexpected call ${url}`);
    return next(String(url), init ?? {});
  });
  const onUnauthorized = vi.fn();
  const onForbidden = vi.fn();
  const api = createApiClient({
    baseUrl: 'https://members.example/api',
    session,
    fetch: fetchMock as typeof fetch,
    onUnauthorized,
    onForbidden,
  });
  return { api, session, storage, calls, onUnauthorized, onForbidden };
}

describe('API client', () => {
  it('reads the profile answers as the server sends them ({ user })', async () => {
    const renamed = { ...USER, firstName: 'Ada L.' };
    const { api, session, calls } = setup([
      () => json(200, { success: true, data: { user: USER } }),
      () => json(200, { success: true, data: { user: renamed } }),
    ]);
    session.set('tok', USER);
    expect(await api.getProfile()).toEqual(USER);
    expect(await api.updateProfile({ firstName: 'Ada L.' })).toEqual(renamed);
    expect(calls[1]?.init.method).toBe('PUT');
    expect(JSON.parse(String(calls[1]?.init.body))).toEqual({ firstName: 'Ada L.' });
  });

  it('unwraps the envelope and sends the bearer token', async () => {
    const { api, session, calls } = setup([() => json(200, { success: true, data: { approved: true, status: 'approved' } })]);
    session.set('tok', USER);
    expect(await api.approvalStatus()).toEqual({ approved: true, status: 'approved' });
    expect(calls[0]?.url).toBe('https://members.example/api/users/approval-status');
    expect((calls[0]!.init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    expect(calls[0]?.init.credentials).toBe('include');
  });

  it('turns a failure into ApiError with the status and server text', async () => {
    const { api } = setup([() => json(400, { success: false, error: 'btcAmount: must be exactly 0.0005 BTC' })]);
    const err = (await api.submitBitcoinPayment({ userId: 'u1', planType: 'monthly', btcAmount: '1' }).catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.message).toBe('btcAmount: must be exactly 0.0005 BTC');
  });

  it('uses the fallback text when the server gives none', async () => {
    const { api } = setup([() => new Response('oops', { status: 502 })]);
    await expect(api.getVideo('v1')).rejects.toMatchObject({ status: 502 });
  });

  it('does not redirect on a failed login', async () => {
    const { api, onUnauthorized } = setup([() => json(401, { success: false, error: 'Invalid email or password' })]);
    await expect(api.login('a@b.c', 'x')).rejects.toMatchObject({ status: 401, message: 'Invalid email or password' });
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('a login with a second factor answers the challenge; verifyMfa completes it without redirects', async () => {
    const { api, calls, onUnauthorized } = setup([
      () => json(200, { success: true, data: { mfaRequired: true, mfaToken: 'mfa.tok' } }),
      () => json(401, { success: false, error: 'The code is not valid' }),
      () => json(200, { success: true, data: { token: 'tok', user: { id: 'u1', email: 'a@b.c' } } }),
    ]);
    const answer = await api.login('a@b.c', 'pw');
    expect(isMfaChallenge(answer)).toBe(true);
    await expect(api.verifyMfa('mfa.tok', '000000')).rejects.toMatchObject({ status: 401, message: 'The code is not valid' });
    expect(onUnauthorized).not.toHaveBeenCalled();
    expect(await api.verifyMfa('mfa.tok', '123456')).toMatchObject({ token: 'tok' });
    expect(calls[2]?.url).toBe('https://members.example/api/auth/mfa/verify');
    expect(JSON.parse(String(calls[2]?.init.body))).toEqual({ mfaToken: 'mfa.tok', code: '123456' });
  });

  it("passes the server's 'enrol first' refusal to onForbidden with its code, and the code on the ApiError", async () => {
    const { api, session, onForbidden } = setup([
      () => json(403, { success: false, error: SECOND_FACTOR_ENROLMENT_REQUIRED, code: 'auth.second_factor_enrolment_required' }),
    ]);
    session.set('tok', USER);
    await expect(api.adminStats()).rejects.toMatchObject({ status: 403, code: 'auth.second_factor_enrolment_required' });
    expect(onForbidden).toHaveBeenCalledWith(SECOND_FACTOR_ENROLMENT_REQUIRED, 'auth.second_factor_enrolment_required');
  });

  it('keeps no code the catalogue does not list (an old server, a proxy page)', async () => {
    const { api, session } = setup([() => json(404, { success: false, error: 'Gone', code: 'made.up' })]);
    session.set('tok', USER);
    const err = await api.adminStats().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 404, message: 'Gone', code: undefined });
  });

  it('refreshes once on a 401 and retries the call', async () => {
    const { api, session, calls } = setup([
      () => json(401, { success: false, error: 'Your session has expired. Please log in again.' }),
      () => json(200, { success: true, data: { token: 'fresh', user: { id: 'u1', email: 'a@b.c', approved: true } } }),
      () => json(200, { success: true, data: { user: { id: 'u1', email: 'a@b.c' } } }),
    ]);
    session.set('stale', USER);
    await api.getProfile();
    expect(calls.map((c) => c.url.replace('https://members.example/api', ''))).toEqual([
      '/users/profile',
      '/auth/refresh',
      '/users/profile',
    ]);
    expect((calls[2]!.init.headers as Record<string, string>).Authorization).toBe('Bearer fresh');
    expect(session.get().token).toBe('fresh');
  });

  it('refreshes before the call when the stored token has expired', async () => {
    const { api, session, calls } = setup([
      () => json(200, { success: true, data: { token: jwt(Date.now() / 1000 + 900), user: { id: 'u1', email: 'a@b.c' } } }),
      () => json(200, { success: true, data: { videos: [], total: 0 } }),
    ]);
    session.set(jwt(Math.floor(Date.now() / 1000) - 10), USER);
    await api.listVideos();
    expect(calls[0]?.url).toContain('/auth/refresh');
  });

  it('clears the session and redirects when the refresh fails', async () => {
    const { api, session, storage, onUnauthorized } = setup([
      () => json(401, { success: false, error: 'expired' }),
      () => json(401, { success: false, error: 'No session to refresh. Please log in.' }),
    ]);
    session.set('stale', USER);
    await expect(api.pendingUsers()).rejects.toMatchObject({ status: 401 });
    expect(session.get()).toEqual({ token: null, user: null });
    expect(storage.getItem('authToken')).toBeNull();
    expect(storage.getItem('user')).toBeNull();
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('keeps the session in memory: nothing stored, and the keys an earlier version stored are removed', () => {
    const storage = memoryStorage();
    storage.setItem('authToken', 'left-by-an-earlier-version');
    storage.setItem('user', JSON.stringify(USER));
    const session = createSessionStore(storage);
    expect(session.get()).toEqual({ token: null, user: null });
    session.set(jwt(Math.floor(Date.now() / 1000) + 900), USER);
    expect(session.get().user).toEqual(USER);
    expect(storage.length).toBe(0);
  });

  it('sends 403 to the forbidden handler, except for the stream', async () => {
    const { api, onForbidden } = setup([
      () => json(403, { success: false, error: 'Content not available in your region' }),
      () => json(403, { success: false, error: 'Active subscription required to view premium content' }),
    ]);
    await expect(api.adminStats()).rejects.toMatchObject({ status: 403 });
    expect(onForbidden).toHaveBeenCalledTimes(1);
    await expect(api.getStream('v1')).rejects.toMatchObject({ message: 'Active subscription required to view premium content' });
    expect(onForbidden).toHaveBeenCalledTimes(1);
  });

  it('times out after the configured time', async () => {
    const session = createSessionStore(memoryStorage());
    const never = (_u: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    const api = createApiClient({ session, fetch: never as typeof fetch, timeoutMs: 20 });
    await expect(api.geoCheck()).rejects.toMatchObject({ status: 0, message: 'The request timed out. Please try again.' });
  });

  it('reads the list shapes the server answers', async () => {
    const { api } = setup([
      () =>
        json(200, { success: true, data: { videos: [{ id: 'v1', title: 't', accessLevel: 'free' }], total: 1, page: 1, pageSize: 24 } }),
      () => json(200, { success: true, data: { payments: [{ id: 'p1' }], count: 1 } }),
      () =>
        json(200, {
          success: true,
          data: {
            plans: [
              {
                id: 'monthly',
                planType: 'monthly',
                name: 'M',
                interval: 'month',
                btcAmount: '0.0005',
                amountSats: 50_000,
                usdPrice: 29.99,
                mostPopular: false,
                features: [],
              },
            ],
            paymentMethods: ['bitcoin'],
            bitcoinNetwork: 'mainnet',
          },
        }),
    ]);
    expect((await api.listVideos()).videos).toHaveLength(1);
    expect(await api.pendingPayments()).toEqual([{ id: 'p1' }]);
    expect((await api.plans())[0]?.btcPrice).toBe('0.0005');
  });

  it('calls the admin video and payment-rejection routes', async () => {
    const video = { id: 'v 1', title: 't', accessLevel: 'free', published: false, width: 1920, height: 1080, size: 10 };
    const { api, calls } = setup([
      () => json(200, { success: true, data: { videos: [video], total: 11, page: 2, pageSize: 10 } }),
      () => json(200, { success: true, data: { ...video, accessLevel: 'vip', published: true } }),
      () => json(200, { success: true, data: { videoId: 'v 1', deleted: true } }),
      () => json(200, { success: true, data: { paymentId: 'p1', status: 'rejected', reason: 'No such transaction' } }),
      () => json(409, { success: false, error: 'Payment is not pending' }),
    ]);
    expect(await api.adminVideos({ page: 2, pageSize: 10 })).toMatchObject({ videos: [video], total: 11, page: 2 });
    expect(calls[0]?.url).toBe('https://members.example/api/admin/videos?page=2&pageSize=10');
    expect(await api.updateVideo('v 1', { accessLevel: 'vip', published: true })).toMatchObject({ accessLevel: 'vip', published: true });
    expect(calls[1]?.url).toBe('https://members.example/api/admin/videos/v%201');
    expect(calls[1]?.init.method).toBe('PUT');
    expect(JSON.parse(String(calls[1]?.init.body))).toEqual({ accessLevel: 'vip', published: true });
    expect(await api.deleteVideo('v 1')).toEqual({ videoId: 'v 1', deleted: true });
    expect(calls[2]?.init.method).toBe('DELETE');
    expect(await api.rejectPayment('p1', 'No such transaction')).toMatchObject({ status: 'rejected' });
    expect(calls[3]?.url).toBe('https://members.example/api/admin/payments/p1/reject');
    expect(JSON.parse(String(calls[3]?.init.body))).toEqual({ reason: 'No such transaction' });
    await expect(api.rejectPayment('p1', 'again')).rejects.toMatchObject({ status: 409, message: 'Payment is not pending' });
  });

  it('reads the analytics days series', () => {
    const day = {
      date: '2026-11-01',
      revenueSats: 0,
      revenueBtc: '0',
      verifiedPayments: 0,
      registrations: 2,
      approvals: 1,
      activeSubscriptions: 0,
    };
    const { date: _date, ...totals } = day;
    expect(toAnalyticsPoints({ from: day.date, to: day.date, days: [day], totals })).toEqual([day]);
  });

  it('downloads the data export with the bearer token, named by Content-Disposition or by format', async () => {
    const { api, session, calls } = setup([
      () =>
        new Response('{"profile":{}}', {
          status: 200,
          headers: { 'content-disposition': 'attachment; filename="my-data-2026-01-02.json"' },
        }),
      () => new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    ]);
    session.set(jwt(Math.floor(Date.now() / 1000) + 600), USER);
    const file = await api.exportMyData('json');
    expect(file.filename).toBe('my-data-2026-01-02.json');
    expect(await file.blob.text()).toBe('{"profile":{}}');
    expect(calls[0]?.url).toBe('https://members.example/api/users/me/export');
    expect((calls[0]!.init.headers as Record<string, string>).Authorization).toMatch(/^Bearer /);
    expect((await api.exportMyData('html')).filename).toBe('my-data.html');
    expect(calls[1]?.url).toBe('https://members.example/api/users/me/export?format=html');
  });

  it('answers a wrong password on the settings calls in place, without the expired-session redirect', async () => {
    const { api, session, onUnauthorized } = setup([
      () => json(401, { success: false, error: 'Your current password is not correct' }),
      () => json(401, { success: false, error: 'Invalid password' }),
    ]);
    session.set(jwt(Math.floor(Date.now() / 1000) + 600), USER);
    await expect(api.changePassword('wrong', 'new-password-1')).rejects.toMatchObject({
      status: 401,
      message: 'Your current password is not correct',
    });
    await expect(api.deleteAccount({ password: 'wrong', confirmation: 'DELETE' })).rejects.toBeInstanceOf(ApiError);
    expect(onUnauthorized).not.toHaveBeenCalled();
    expect(session.get().token).toBeTruthy();
  });
});
