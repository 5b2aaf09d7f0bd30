/** Helpers for the integration tests of identity, admin and mail (and other modules' tests). */
import type { apiClient } from '../../test/harness.js';
import { TEST_ADMIN } from '../../test/harness.js';

type Api = ReturnType<typeof apiClient>;

let counter = 0;

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
