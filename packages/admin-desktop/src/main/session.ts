/**
 * The admin's session, held by the main process on the shared API client of @members/ui (its
 * transport, login and refresh: no second implementation here): sign-in to the configured server
 * (admins only), the short-lived access token in memory, the refresh token (the server's httpOnly
 * cookie, read from Set-Cookie by `cookieJarFetch`) in the secret store, refresh before expiry and
 * on a 401, and API calls on the renderer's behalf so no token ever reaches the renderer. Plain
 * Node (fetch), no Electron.
 * A login that asks for a second factor keeps its challenge token here until `verifyCode`; an
 * admin the server holds to enrolment (REQUIRE_ADMIN_2FA) is flagged in the state until enrolled.
 */
import {
  type ApiClient,
  ApiError,
  type AuthResult,
  createApiClient,
  createSessionStore,
  isMfaChallenge,
  type SecondFactorEnrolment,
  type User,
} from '@members/ui/api';
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
  /** The access token, refreshed first when it is about to expire. */
  accessToken(): Promise<string | undefined>;
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
function toUser(u: User | null | undefined): SessionUser | null {
  if (!u || typeof u.id !== 'string' || typeof u.email !== 'string') return null;
  return { id: u.id, email: u.email, role: u.role, staffRole: u.staffRole ?? null, firstName: u.firstName, lastName: u.lastName };
}

/** The cookies a browser would keep, kept for Node: sent to /auth/refresh and /auth/logout, refreshed from every Set-Cookie. */
interface CookieJarStore {
  get(): CookieJar;
  set(jar: CookieJar): void;
}

function cookieJarFetch(jar: CookieJarStore): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers);
    const j = jar.get();
    if (/\/auth\/(refresh|logout)$/.test(new URL(url).pathname) && j.refresh_token) {
      headers.set(
        'cookie',
        Object.entries(j)
          .map(([k, v]) => `${k}=${encodeURIComponent(v as string)}`)
          .join('; '),
      );
      headers.set('x-csrf-token', j.csrf_token ?? '');
    }
    const res = await fetch(input, { ...init, headers });
    if (res.headers.getSetCookie().length) jar.set(readCookies(res, jar.get()));
    // A refused refresh token (expired, revoked) is of no further use.
    else if (new URL(url).pathname.endsWith('/auth/refresh') && (res.status === 401 || res.status === 403)) jar.set({});
    return res;
  };
}

export function createSession(deps: { config: ConfigStore; secrets: SecretStore; timeoutMs?: number }): Session {
  const store = createSessionStore(undefined);
  let enrolmentRequired = false;
  let challenge: { url: string; mfaToken: string } | undefined;
  // While a sign-in is answered, the cookies it sets are held here: only an admin's are kept.
  let pending: CookieJar | undefined;

  const jar: CookieJarStore = {
    get() {
      if (pending) return pending;
      try {
        return JSON.parse(deps.secrets.get() ?? '{}') as CookieJar;
      } catch {
        return {};
      }
    },
    set(j) {
      if (pending) pending = j;
      else deps.secrets.set(j.refresh_token ? JSON.stringify(j) : undefined);
    },
  };
  const base = () => normalizeUrl(deps.config.read().serverUrl ?? '');

  const clients = new Map<string, ApiClient>();
  /** The shared client of one server (the session store is shared: one admin at a time). */
  function clientOf(url: string): ApiClient {
    let client = clients.get(url);
    if (!client) {
      client = createApiClient({
        baseUrl: `${url}/api`,
        session: store,
        timeoutMs: deps.timeoutMs,
        fetch: cookieJarFetch(jar),
        // The main process has no pages to go to: a refusal is answered to the renderer.
        onUnauthorized: () => {},
        onForbidden: () => {},
        onRefreshed: (data) => {
          enrolmentRequired = data.mfaEnrollmentRequired === true;
        },
      });
      clients.set(url, client);
    }
    return client;
  }

  const admin = (): SessionUser | null => {
    const u = toUser(store.get().user);
    return u?.role === 'admin' ? u : null;
  };

  function forget() {
    store.clear();
    enrolmentRequired = false;
  }

  /** A login (or second-factor) answer: keep an admin's session, refuse and log out anyone else. */
  async function accept(url: string, client: ApiClient, data: AuthResult): Promise<SignInResult> {
    const u = toUser(data.user);
    if (!data.token || !u) return { ok: false, error: 'Login failed' };
    // The server remembers the URL even for a refused account: it is the admin's server.
    deps.config.write({ serverUrl: url });
    if (u.role !== 'admin') {
      // Do not keep a member's session: log it out on the server (with its own cookies).
      await client.logout().catch(() => {});
      pending = undefined;
      forget();
      return { ok: false, error: ACCESS_DENIED.title, accessDenied: { ...ACCESS_DENIED, email: u.email, role: u.role } };
    }
    const cookies = pending ?? {};
    pending = undefined;
    jar.set(cookies);
    store.set(data.token, data.user);
    enrolmentRequired = data.mfaEnrollmentRequired === true;
    return { ok: true, user: u, ...(enrolmentRequired ? { secondFactorSetupRequired: true } : {}) };
  }

  /** A refused or unreachable sign-in call as the renderer shows it. */
  function refused(url: string, err: unknown): SignInResult {
    pending = undefined;
    if (err instanceof ApiError && err.status === 0) return { ok: false, error: `Cannot reach ${url}: ${err.message}` };
    return { ok: false, error: (err as Error).message || 'Login failed' };
  }

  const session: Session = {
    state: () => {
      const user = admin();
      return {
        serverUrl: deps.config.read().serverUrl ?? null,
        user,
        ...(user && enrolmentRequired ? { secondFactorSetupRequired: true } : {}),
      };
    },
    async accessToken() {
      if (!base()) return undefined;
      await clientOf(base()).ensureFresh();
      return store.get().token ?? undefined;
    },
    serverUrl: base,

    async signIn(serverUrl, email, password) {
      const url = normalizeUrl(serverUrl);
      challenge = undefined;
      const client = clientOf(url);
      pending = {};
      try {
        const answer = await client.login(email, password);
        if (isMfaChallenge(answer)) {
          pending = undefined;
          deps.config.write({ serverUrl: url });
          challenge = { url, mfaToken: answer.mfaToken };
          return { ok: false, error: 'Enter your authentication code', mfaRequired: true };
        }
        return await accept(url, client, answer);
      } catch (err) {
        return refused(url, err);
      }
    },

    async verifyCode(code) {
      if (!challenge) return { ok: false, error: 'Your sign-in attempt has expired. Please log in again.' };
      const { url, mfaToken } = challenge;
      const client = clientOf(url);
      pending = {};
      try {
        const result = await accept(url, client, await client.verifyMfa(mfaToken, code));
        if (result.ok || result.accessDenied) challenge = undefined;
        return result;
      } catch (err) {
        return refused(url, err);
      }
    },

    async startEnrolment() {
      return clientOf(base()).startMfaEnrolment();
    },

    async confirmEnrolment(code) {
      await clientOf(base()).confirmMfaEnrolment(code);
      enrolmentRequired = false;
    },

    restore: () => session.refresh(),

    async refresh() {
      if (!jar.get().refresh_token || !base()) return false;
      const ok = await clientOf(base()).refreshSession();
      if (ok && admin()) return true;
      // Refused (expired, revoked: the jar was emptied) or no longer an admin.
      forget();
      return false;
    },

    async request(method, path, body) {
      if (!base()) return { status: 0, body: { success: false, error: 'No server configured' } };
      try {
        const { status, body: answer } = await clientOf(base()).exchange(method, path, body === undefined ? {} : { body });
        return { status, body: { ...answer, success: answer.success ?? (status >= 200 && status < 300) } };
      } catch (err) {
        return { status: 0, body: { success: false, error: `Cannot reach the server: ${(err as Error).message}` } };
      }
    },

    async signOut() {
      if (base() && jar.get().refresh_token)
        await clientOf(base())
          .logout()
          .catch(() => {});
      deps.secrets.set(undefined);
      forget();
      challenge = undefined;
    },
  };
  return session;
}
