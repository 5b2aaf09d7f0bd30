/**
 * The admin's session, held by the main process: sign-in to the configured server (admins only),
 * the short-lived access token in memory, the refresh token (the server's httpOnly cookie, read
 * from Set-Cookie) in the secret store, refresh on a 401, and API calls on the renderer's behalf so
 * no token ever reaches the renderer. Plain Node (fetch), no Electron.
 */
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

function toUser(raw: unknown): SessionUser | null {
  if (!raw || typeof raw !== 'object') return null;
  const u = raw as Record<string, unknown>;
  if (typeof u.id !== 'string' || typeof u.email !== 'string') return null;
  return {
    id: u.id,
    email: u.email,
    role: typeof u.role === 'string' ? u.role : 'member',
    firstName: typeof u.firstName === 'string' ? u.firstName : undefined,
    lastName: typeof u.lastName === 'string' ? u.lastName : undefined,
  };
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
      const data = body.data as { token?: string; user?: unknown } | undefined;
      const u = toUser(data?.user);
      if (!res.ok || !data?.token || !u || u.role !== 'admin') {
        token = undefined;
        user = null;
        if (res.status === 401 || res.status === 403) deps.secrets.set(undefined);
        return false;
      }
      token = data.token;
      user = u;
      return true;
    } catch {
      return false;
    }
  }

  const session: Session = {
    state: () => ({ serverUrl: deps.config.read().serverUrl ?? null, user }),
    accessToken: () => token,
    serverUrl: base,

    async signIn(serverUrl, email, password) {
      const url = normalizeUrl(serverUrl);
      let res: Response;
      try {
        res = await fetch(`${url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        return { ok: false, error: `Cannot reach ${url}: ${(err as Error).message}` };
      }
      const body = await readJson(res);
      const data = body.data as { token?: string; user?: unknown } | undefined;
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
      return { ok: true, user: u };
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
    },
  };
  return session;
}
