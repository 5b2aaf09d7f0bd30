/**
 * The typed API client: one object bound to one server and one session, composed of one file per
 * concept under ./client: the transport (base URL, timeouts, bearer and CSRF headers, the
 * `{ success, data, error, code }` envelope, ApiError), the session keeping (token refresh, the
 * 401/403 redirects of spec §7–§8), uploads (tus and multipart), downloads, and the calls of each
 * area (identity, catalog, billing, admin, chat, custom requests, leak tracing).
 * The web app uses the default base '/api'; the admin desktop points it at a remote server.
 */

import { adminCalls } from './client/admin';
import { billingCalls } from './client/billing';
import { catalogCalls } from './client/catalog';
import { chatCalls } from './client/chat';
import { customRequestCalls } from './client/customRequests';
import { createDownload } from './client/download';
import { identityCalls } from './client/identity';
import { leakCalls } from './client/leaks';
import { liveCalls } from './client/live';
import { createSessionCalls } from './client/session';
import { createTransport } from './client/transport';
import { createUploads } from './client/uploads';
import type { ErrorCode } from './schemas/errorCodes';
import { createSessionStore, type SessionStore } from './session';
import type { AuthResult } from './types';

export { adminCalls, type ListPage, toAnalyticsPoints } from './client/admin';
export { API_TIMEOUT_MS, ApiError, type Envelope, type Exchange, type RequestOptions, UPLOAD_TIMEOUT_MS } from './client/transport';
export {
  TUS_PATH,
  TUS_RETRYABLE_STATUS,
  TusAttemptError,
  type TusAttemptOptions,
  tusAttempt,
  tusMetadata,
  tusRefusal,
  tusTerminate,
  VIDEO_ID_HEADER,
} from './client/uploads';

export interface ApiClientOptions {
  /** Default '/api' (same origin). The desktop app passes e.g. 'https://members.example.com/api'. */
  baseUrl?: string;
  session?: SessionStore;
  timeoutMs?: number;
  uploadTimeoutMs?: number;
  /** After a 401 the session is cleared, then this runs (default: go to /auth/login). */
  onUnauthorized?: () => void;
  /** After a 403 (default: go to /blocked), with the refusal's message and code. */
  onForbidden?: (message: string, code: ErrorCode | undefined) => void;
  fetch?: typeof fetch;
  /** Runs after each successful refresh with its answer (the desktop reads `mfaEnrollmentRequired`). */
  onRefreshed?: (result: AuthResult) => void;
}

export type ApiClient = ReturnType<typeof createApiClient>;

function defaultGo(path: string) {
  if (typeof location !== 'undefined' && location.pathname !== path) location.assign(path);
}

/**
 * A client bound to one server and one session.
 * @example const api = createApiClient({ baseUrl: '/api' }); const { token, user } = await api.login(email, password);
 */
export function createApiClient(options: ApiClientOptions = {}) {
  const transport = createTransport({
    baseUrl: options.baseUrl ?? '/api',
    session: options.session ?? createSessionStore(),
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
    onUnauthorized: options.onUnauthorized ?? (() => defaultGo('/auth/login')),
    onForbidden: options.onForbidden ?? (() => defaultGo('/blocked')),
  });
  const calls = createSessionCalls(transport, options.onRefreshed);
  const uploads = createUploads(calls, options.uploadTimeoutMs);
  const download = createDownload(calls);
  return {
    baseUrl: transport.baseUrl,
    session: transport.session,
    request: calls.request,
    /** The status and envelope of one call, refreshed like `request` but not unwrapped (the desktop's IPC relays it). */
    exchange: calls.exchange,
    upload: uploads.upload,
    refreshSession: calls.refreshSession,
    /** Refreshes the access token first when it is about to expire (for calls made outside this client, e.g. tus). */
    ensureFresh: calls.ensureFresh,
    ...identityCalls(calls, download),
    ...catalogCalls(calls),
    ...billingCalls(calls),
    ...adminCalls(calls),
    ...chatCalls(calls),
    ...customRequestCalls(calls),
    ...leakCalls(calls, uploads.upload),
    ...liveCalls(calls),
    uploadVideo: uploads.uploadVideo,
  };
}
