/** Helpers for the integration tests of identity, admin and mail (and other modules' tests). */
import type { apiClient } from '../../test/harness.js';
import { TEST_ADMIN } from '../../test/harness.js';
import type { AppContext } from '../kernel/context.js';
import type { Clock } from '../shared/clock.js';
import { totpCode } from './totp.js';

type Api = ReturnType<typeof apiClient>;

let counter = 0;

/**
 * Appends a user's identity events straight to the store (UserRegistered, then UserApproved unless
 * `approved: false`, or UserRejected with `rejected: true`), for suites of other areas that need a
 * member without going through registration and its rate limits.
 */
export async function appendTestUser(
  ctx: Pick<AppContext, 'store' | 'clock'>,
  user: { id: string; email: string; role?: 'member' | 'admin'; lastName?: string; approved?: boolean; rejected?: boolean },
): Promise<void> {
  const { id, email } = user;
  const at = ctx.clock.now().toISOString();
  const registered = {
    type: 'UserRegistered',
    data: {
      userId: id,
      email,
      firstName: 'Test',
      lastName: user.lastName ?? 'Member',
      dateOfBirth: '1990-01-01',
      passwordHash: 'not-a-real-hash',
      role: user.role ?? 'member',
      registeredAt: at,
    },
  };
  const decided =
    user.approved === false
      ? user.rejected
        ? [{ type: 'UserRejected', data: { userId: id, rejectedBy: 'test-admin', rejectedAt: at } }]
        : []
      : [{ type: 'UserApproved', data: { userId: id, approvedBy: 'test-admin', approvedAt: at } }];
  await ctx.store.append(`user-${id}`, [registered, ...decided], { expectedVersion: 'no_stream', metadata: { actorId: null, at } });
}

export function registrationPayload(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    email: `member${counter}-${Date.now().toString(36)}@example.test`,
    password: 'member-password-1',
    firstName: 'Mia',
    lastName: 'Member',
    dateOfBirth: '1990-05-01',
    agreeToTerms: true,
    ...overrides,
  };
}

/** Registers a member and returns the payload plus the new user id. */
export async function registerMember(api: Api, overrides: Record<string, unknown> = {}) {
  const payload = registrationPayload(overrides);
  const res = await api.post('/auth/register', payload);
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.body.error}`);
  return { ...payload, id: res.body.data.user.id as string };
}

export async function login(api: Api, email: string, password: string) {
  const res = await api.post('/auth/login', { email, password });
  if (res.status !== 200) throw new Error(`login ${email} failed: ${res.status} ${res.body.error}`);
  return { token: res.body.data.token as string, user: res.body.data.user, cookies: cookiesOf(res.headers) };
}

export const adminLogin = (api: Api) => login(api, TEST_ADMIN.email, TEST_ADMIN.password);

/** name → value of every Set-Cookie in a response. */
export function cookiesOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';');
    const i = (pair ?? '').indexOf('=');
    if (i > 0) out[(pair as string).slice(0, i).trim()] = decodeURIComponent((pair as string).slice(i + 1).trim());
  }
  return out;
}

export const cookieHeader = (cookies: Record<string, string>) =>
  Object.entries(cookies)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('; ');

/** A member registered, approved by the admin, and logged in. */
export async function approvedMember(api: Api, overrides: Record<string, unknown> = {}) {
  const member = await registerMember(api, overrides);
  const admin = await adminLogin(api);
  const res = await api.post(`/admin/users/${member.id}/approve`, undefined, admin.token);
  if (res.status !== 200) throw new Error(`approve failed: ${res.status} ${res.body.error}`);
  return { ...member, ...(await login(api, member.email, member.password)) };
}

/**
 * Enrols and confirms a TOTP second factor for the bearer of `token` (its answers through `headers`,
 * e.g. an X-Forwarded-For); returns the secret and recovery codes. The confirming code's time step is spent.
 */
export async function enrolSecondFactor(api: Api, clock: Clock, token: string, headers: Record<string, string> = {}) {
  const started = await api.call('POST', '/auth/mfa/enroll', { token, headers });
  if (started.status !== 200) throw new Error(`enrol failed: ${started.status} ${started.body.error}`);
  const { secret, recoveryCodes } = started.body.data as { secret: string; recoveryCodes: string[] };
  const confirmed = await api.call('POST', '/auth/mfa/enroll/confirm', { token, headers, body: { code: totpCode(secret, clock.now()) } });
  if (confirmed.status !== 200) throw new Error(`confirm failed: ${confirmed.status} ${confirmed.body.error}`);
  return { secret, recoveryCodes };
}
