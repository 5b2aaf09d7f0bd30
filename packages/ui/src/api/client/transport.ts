/**
 * The client's transport: the base URL and query strings, the timeout, the bearer and CSRF
 * headers, the `{ success, data, error, code }` envelope, and `ApiError` with the server's code.
 * No session logic: `session.ts` refreshes tokens around these calls.
 */
import { type ErrorCode, isErrorCode } from '../schemas/errorCodes';
import type { SessionStore } from '../session';

export const API_TIMEOUT_MS = 10_000;
export const UPLOAD_TIMEOUT_MS = 300_000;

/**
 * A failed call: the HTTP status (0 for network failure or timeout), the server's error text to
 * show, and its `code` (schemas/errorCodes.ts) to branch on; undefined when the server gave none
 * (no answer, a proxy's page). Never branch on the message text.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
    readonly code?: ErrorCode,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Message when the server gives none. */
  fallbackError?: string;
  /** false for calls whose 401 is an answer, not an expired session (login, refresh...). */
  redirectOn401?: boolean;
  /** false where a 403 is shown in place (the player's 'Access Restricted'). */
  redirectOn403?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Let the request outlive the page (fetch `keepalive`): a report sent while the page is hidden or left. */
  keepalive?: boolean;
}

/** The API's answer as sent: `data` on success, `error` and `code` on a refusal. */
export interface Envelope<T = unknown> {
  success?: boolean;
  data?: T;
  error?: string;
  code?: string;
  details?: unknown;
}

/** One answer: its HTTP status and its envelope. */
export interface Exchange {
  status: number;
  body: Envelope;
}

export interface TransportOptions {
  baseUrl: string;
  session: SessionStore;
  timeoutMs?: number;
  /** After a 401 the session is cleared, then this runs. */
  onUnauthorized: () => void;
  /** After a 403, with the refusal's message and code. */
  onForbidden: (message: string, code: ErrorCode | undefined) => void;
  fetch?: typeof fetch;
}

export type Transport = ReturnType<typeof createTransport>;

function readCookie(name: string): string | undefined {
  if (typeof document === 'undefined') return undefined;
  for (const part of document.cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

function isSameOrigin(url: string): boolean {
  if (typeof location === 'undefined') return false;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/** An answer's text as an envelope; `unreadable` is the error when it is not JSON. */
export function parseEnvelope(text: string, unreadable: string): Envelope {
  try {
    return text ? (JSON.parse(text) as Envelope) : {};
  } catch {
    return { success: false, error: unreadable };
  }
}

export function createTransport(options: TransportOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { session } = options;
  const timeoutMs = options.timeoutMs ?? API_TIMEOUT_MS;
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const sameOrigin = isSameOrigin(baseUrl);

  function url(path: string, query?: RequestOptions['query']): string {
    let u = `${baseUrl}${path}`;
    if (query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
      const s = qs.toString();
      if (s) u += `?${s}`;
    }
    return u;
  }

  function headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json' };
    if (json) h['Content-Type'] = 'application/json';
    const token = session.get().token;
    if (token) h.Authorization = `Bearer ${token}`;
    if (sameOrigin) {
      const csrf = readCookie('csrf_token');
      if (csrf) h['X-CSRF-Token'] = csrf;
    }
    return h;
  }

  /** One request with the session's bearer (`auth` false: without it); network failures become ApiError(0). */
  async function send(method: string, path: string, opts: RequestOptions, auth = true): Promise<Exchange> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), opts.timeoutMs ?? timeoutMs);
    opts.signal?.addEventListener('abort', () => controller.abort(opts.signal?.reason));
    const isForm = typeof FormData !== 'undefined' && opts.body instanceof FormData;
    const h = headers(opts.body !== undefined && !isForm);
    if (!auth) delete h.Authorization;
    try {
      const res = await doFetch(url(path, opts.query), {
        method,
        headers: h,
        body: opts.body === undefined ? undefined : isForm ? (opts.body as FormData) : JSON.stringify(opts.body),
        credentials: 'include',
        signal: controller.signal,
        ...(opts.keepalive ? { keepalive: true } : {}),
      });
      const text = await res.text();
      const body = parseEnvelope(text, res.ok ? 'The server sent an unreadable answer' : `Request failed (${res.status})`);
      return { status: res.status, body };
    } catch (err) {
      if (controller.signal.aborted && !opts.signal?.aborted) throw new ApiError(0, 'The request timed out. Please try again.');
      if (opts.signal?.aborted) throw err;
      throw new ApiError(0, 'Network error. Please check your connection and try again.');
    } finally {
      clearTimeout(timer);
    }
  }

  /** A refusal as an ApiError, after the 401 (session cleared) and 403 redirects of spec §7–§8. */
  function fail(status: number, body: Envelope, opts: RequestOptions): never {
    const message = body.error || opts.fallbackError || `Request failed (${status})`;
    const code = isErrorCode(body.code) ? body.code : undefined;
    if (status === 401 && opts.redirectOn401 !== false) {
      session.clear();
      options.onUnauthorized();
    } else if (status === 403 && opts.redirectOn403 !== false) {
      options.onForbidden(message, code);
    }
    throw new ApiError(status, message, body.details, code);
  }

  /** `data` of a successful answer, or the refusal thrown. */
  function unwrap<T>({ status, body }: Exchange, opts: RequestOptions): T {
    if (status < 200 || status >= 300 || body.success === false) fail(status, body, opts);
    return body.data as T;
  }

  return { baseUrl, session, url, headers, send, fail, unwrap, fetch: doFetch };
}
