/**
 * The client's session keeping: the access token refreshed from the refresh cookie before it
 * expires and once after a 401 (one refresh at a time, shared by every waiting call), and the
 * authorized calls built on the transport (`exchange` answers status and envelope, `request` the
 * unwrapped data). A failed refresh logs the session out.
 */
import { tokenExpiry } from '../session';
import type { AuthResult } from '../types';
import type { Exchange, RequestOptions, Transport } from './transport';

export type Calls = ReturnType<typeof createSessionCalls>;

export function createSessionCalls(transport: Transport, onRefreshed?: (result: AuthResult) => void) {
  const { session } = transport;
  let refreshing: Promise<boolean> | undefined;

  /** Exchanges the refresh cookie for a new access token; false (and logged out) when that fails. */
  function refreshSession(): Promise<boolean> {
    refreshing ??= (async () => {
      try {
        const { status, body } = await transport.send('POST', '/auth/refresh', {}, false);
        const data = body.data as AuthResult | undefined;
        if (status >= 200 && status < 300 && body.success !== false && data?.token) {
          session.set(data.token, data.user ?? undefined);
          onRefreshed?.(data);
          return true;
        }
      } catch {
        // network failure: treated as a failed refresh
      }
      session.clear();
      return false;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  function expired(token: string): boolean {
    const exp = tokenExpiry(token);
    return exp !== undefined && exp * 1000 <= Date.now() + 5_000;
  }

  /** Refreshes first when the token is about to expire. */
  async function ensureFresh(): Promise<void> {
    const token = session.get().token;
    if (token && expired(token)) await refreshSession();
  }

  /** One call's status and envelope, refreshed before an expiring token and retried once after a 401. */
  async function exchange(method: string, path: string, opts: RequestOptions = {}): Promise<Exchange> {
    if (opts.redirectOn401 !== false) await ensureFresh();
    let answer = await transport.send(method, path, opts);
    if (answer.status === 401 && opts.redirectOn401 !== false && session.get().token) {
      if (await refreshSession()) answer = await transport.send(method, path, opts);
    }
    return answer;
  }

  /** One call: envelope unwrapped into `data`, or an ApiError. */
  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return transport.unwrap<T>(await exchange(method, path, opts), opts);
  }

  const get = <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts);
  const post = <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body });

  return { transport, refreshSession, ensureFresh, exchange, request, get, post };
}

/** Auth calls answer 401/403 as part of their result (wrong password, rejected account): no redirect. */
export const noRedirect: RequestOptions = { redirectOn401: false, redirectOn403: false };
