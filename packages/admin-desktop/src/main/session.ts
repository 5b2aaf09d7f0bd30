/**
 * The admin's session, held by the main process: sign-in to the configured server (admins only),
 * the short-lived access token in memory, the refresh token (the server's httpOnly cookie, read
 * from Set-Cookie) in the secret store, refresh on a 401, and API calls on the renderer's behalf so
 * no token ever reaches the renderer. Plain Node (fetch), no Electron.
 * A login that asks for a second factor keeps its challenge token here until `verifyCode`; an
 * admin the server holds to enrolment (REQUIRE_ADMIN_2FA) is flagged in the state until enrolled.
 */
import type { AuthResult, SecondFactorEnrolment, User } from '@members/ui/api';
import type { ApiAnswer, SessionState, SessionUser, SignInResult } from '../shared/ipc.js';
import type { ConfigStore, SecretStore } from './configStore.js';

export const ACCESS_DENIED = { title: 'Access Denied', message: "You don't have permission to access this page." } as const;

interface CookieJar {
  refresh_token?: string;
  csrf_token?: string;
}

export interface Session {
  state(): SessionState;
  signIn(serverUrl: string, email: string, password: string): Promise<SignInResult>;
  /** The second step of a sign-in that answered `mfaRequired`. */
  verifyCode(code: string): Promise<SignInResult>;
  /** Starts the TOTP enrolment of the signed-in admin (secret, otpauth URI, recovery codes). */
  startEnrolment(): Promise<SecondFactorEnrolment>;
  /** Confirms it with a code; the enrolment flag clears. */
  confirmEnrolment(code: string): Promise<void>;
  /** Signs in again from the stored refresh token (at start-up). */
  restore(): Promise<boolean>;
  refresh(): Promise<boolean>;
  accessToken(): string | undefined;
  serverUrl(): string;
  request(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
  signOut(): Promise<void>;
}

function normalizeUrl(u: string): string {
  return u.trim().replace(/\/+$/, '');
}

function readCookies(res: Response, jar: CookieJar): CookieJar {
  const next = { ...jar };
  for (const line of res.headers.getSetCookie()) {
    const m = /^\s*(refresh_token|csrf_token)=([^;]*)/.exec(line);
    if (!m) continue;
    const name = m[1] as keyof CookieJar;
    const value = decodeURIComponent(m[2] ?? '');
    // An expired/deleted cookie clears it.
    if (!value || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) delete next[name];
    else next[name] = value;
  }
  return next;
}

/** The session's user from the API's User (typed by the shared schema); null when the answer carries none. */
function toUser(u: User | undefined): SessionUser | null {
  if (!u || typeof u.id !== 'string' || typeof u.email !== 'string') return null;
  return { id: u.id, email: u.email, role: u.role, firstName: u.firstName, lastName: u.lastName };
}

async function readJson(res: Response): Promise<ApiAnswer['body']> {
  const text = await res.text();
  try {
    return JSON.parse(text) as ApiAnswer['body'];
  } catch {
    return { success: false, error: `Unexpected answer from the server (HTTP ${res.status})` };
  }
}

export function createSession(deps: { config: ConfigStore; secrets: SecretStore; timeoutMs?: number }): Session {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  let token: string | undefined;
  let user: SessionUser | null = null;
  let refreshing: Promise<boolean> | undefined;
  let enrolmentRequired = false;
  let challenge: { url: string; mfaToken: string } | undefined;

  const jar = (): CookieJar => {
    try {
      return JSON.parse(deps.secrets.get() ?? '{}') as CookieJar;
    } catch {
      return {};
    }
  };
  const saveJar = (j: CookieJar) => deps.secrets.set(j.refresh_token ? JSON.stringify(j) : undefined);
  const base = () => normalizeUrl(deps.config.read().serverUrl ?? '');

  function cookieHeaders(j: CookieJar): Record<string, string> {
    const pairs = Object.entries(j).map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`);
    return pairs.length ? { cookie: pairs.join('; '), 'x-csrf-token': j.csrf_token ?? '' } : {};
  }

  async function doRefresh(): Promise<boolean> {
    const j = jar();
    if (!j.refresh_token || !base()) return false;
    try {
      const res = await fetch(`${base()}/api/auth/refresh`, {
        method: 'POST',
        headers: cookieHeaders(j),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await readJson(res);
      saveJar(readCookies(res, j));
      const data = body.data as AuthResult | undefined;
      const u = toUser(data?.user);
      if (!res.ok || !data?.token || !u || u.role !== 'admin') {
        token = undefined;
        user = null;
        if (res.status === 401 || res.status === 403) deps.secrets.set(undefined);
        return false;
      }
      token = data.token;
      user = u;
      enrolmentRequired = data.mfaEnrollmentRequired === true;
      return true;
    } catch {
      return false;
    }
  }

  async function post(
    url: string,
    path: string,
    body: unknown,
  ): Promise<{ ok: true; res: Response; body: ApiAnswer['body'] } | { ok: false; error: string }> {
    try {
      const res = await fetch(`${url}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { ok: true, res, body: await readJson(res) };
    } catch (err) {
      return { ok: false, error: `Cannot reach ${url}: ${(err as Error).message}` };
    }
  }

  /** A login (or second-factor) answer: keep an admin's session, refuse and log out anyone else. */
  async function accept(url: string, res: Response, body: ApiAnswer['body']): Promise<SignInResult> {
    const data = body.data as AuthResult | undefined;
    const u = toUser(data?.user);
    if (!res.ok || !body.success || !data?.token || !u) return { ok: false, error: body.error || 'Login failed' };
    // The server remembers the URL even for a refused account: it is the admin's server.
    deps.config.write({ serverUrl: url });
    const cookies = readCookies(res, {});
    if (u.role !== 'admin') {
      // Do not keep a member's session: log it out on the server.
      await fetch(`${url}/api/auth/logout`, { method: 'POST', headers: cookieHeaders(cookies) }).catch(() => {});
      token = undefined;
      user = null;
      return { ok: false, error: ACCESS_DENIED.title, accessDenied: { ...ACCESS_DENIED, email: u.email, role: u.role } };
    }
    saveJar(cookies);
    token = data.token;
    user = u;
    enrolmentRequired = data.mfaEnrollmentRequired === true;
    return { ok: true, user: u, ...(enrolmentRequired ? { secondFactorSetupRequired: true } : {}) };
  }

  const session: Session = {
    state: () => ({
      serverUrl: deps.config.read().serverUrl ?? null,
      user,
      ...(user && enrolmentRequired ? { secondFactorSetupRequired: true } : {}),
    }),
    accessToken: () => token,
    serverUrl: base,

    async signIn(serverUrl, email, password) {
      const url = normalizeUrl(serverUrl);
      challenge = undefined;
      const sent = await post(url, '/auth/login', { email, password });
      if (!sent.ok) return sent;
      const data = sent.body.data as { mfaRequired?: boolean; mfaToken?: string } | undefined;
      if (sent.res.ok && data?.mfaRequired && data.mfaToken) {
        deps.config.write({ serverUrl: url });
        challenge = { url, mfaToken: data.mfaToken };
        return { ok: false, error: 'Enter your authentication code', mfaRequired: true };
      }
      return accept(url, sent.res, sent.body);
    },

    async verifyCode(code) {
      if (!challenge) return { ok: false, error: 'Your sign-in attempt has expired. Please log in again.' };
      const { url, mfaToken } = challenge;
      const sent = await post(url, '/auth/mfa/verify', { mfaToken, code });
      if (!sent.ok) return sent;
      const result = await accept(url, sent.res, sent.body);
      if (result.ok || result.accessDenied) challenge = undefined;
      return result;
    },

    async startEnrolment() {
      const { status, body } = await session.request('POST', '/auth/mfa/enroll');
      if (status !== 200 || !body.success) throw new Error(body.error || 'Could not start the setup');
      return body.data as SecondFactorEnrolment;
    },

    async confirmEnrolment(code) {
      const { status, body } = await session.request('POST', '/auth/mfa/enroll/confirm', { code });
      if (status !== 200 || !body.success) throw new Error(body.error || 'The code is not valid');
      enrolmentRequired = false;
    },

    restore: () => session.refresh(),

    refresh() {
      refreshing ??= doRefresh().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },

    async request(method, path, body) {
      if (!base()) return { status: 0, body: { success: false, error: 'No server configured' } };
      for (let attempt = 0; ; attempt++) {
        const headers: Record<string, string> = {};
        if (token) headers.authorization = `Bearer ${token}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        let res: Response;
        try {
          res = await fetch(`${base()}/api${path}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(timeoutMs),
          });
        } catch (err) {
          return { status: 0, body: { success: false, error: `Cannot reach the server: ${(err as Error).message}` } };
        }
        if (res.status === 401 && attempt === 0 && (await session.refresh())) continue;
        return { status: res.status, body: await readJson(res) };
      }
    },

    async signOut() {
      const j = jar();
      if (base() && j.refresh_token) {
        await fetch(`${base()}/api/auth/logout`, {
          method: 'POST',
          headers: cookieHeaders(j),
          signal: AbortSignal.timeout(timeoutMs),
        }).catch(() => {});
      }
      deps.secrets.set(undefined);
      token = undefined;
      user = null;
      enrolmentRequired = false;
      challenge = undefined;
    },
  };
  return session;
}
