/**
 * The typed API client: one place for the base URL, timeouts, the bearer and CSRF headers, the
 * `{ success, data, error }` envelope, token refresh and the 401/403 redirects of spec §7–§8.
 * The web app uses the default base '/api'; the admin desktop points it at a remote server.
 */
import { type ErrorCode, isErrorCode } from './schemas/errorCodes';
import { createSessionStore, type SessionStore, tokenExpiry } from './session';
import type {
  AccountSession,
  AddedCaption,
  AdminCustomRequest,
  AdminRunners,
  AdminStats,
  AdminVideo,
  AdminVideoChanges,
  AdminVideoPage,
  AnalyticsAnswer,
  AnalyticsPoint,
  ApprovalStatus,
  AuthResult,
  BitcoinPaymentSubmission,
  ChatConversation,
  ChatMessage,
  ChatStatus,
  CustomRequest,
  CustomRequestPayment,
  DeleteAccountPayload,
  DeletedCaption,
  DeletedVideo,
  EmailVerified,
  GeoCheck,
  LeakExamination,
  LeakExaminations,
  LoginResult,
  MemberHistory,
  MemberListRow,
  MessageAnswer,
  NotificationSettings,
  PendingPayment,
  PendingUser,
  Plan,
  PlanAnswer,
  PlansAnswer,
  PlanType,
  RegistrationAnswer,
  RegistrationPayload,
  RejectedPayment,
  SecondFactorEnrolment,
  SecondFactorStatus,
  SiteAnswer,
  SiteInfo,
  StreamInfo,
  SubmittedPayment,
  Subscription,
  SubscriptionIntent,
  TusUploadMetadata,
  UploadVideoPayload,
  User,
  UserDecision,
  VerifiedPayment,
  Video,
  VideoPage,
  VideoQuery,
  ViewAnswer,
} from './types';

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
}

interface Envelope<T> {
  success?: boolean;
  data?: T;
  error?: string;
  code?: string;
  details?: unknown;
}

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

function defaultGo(path: string) {
  if (typeof location !== 'undefined' && location.pathname !== path) location.assign(path);
}

/** GET /admin/analytics answers every day of the window in `days`; the charts plot those points. */
export function toAnalyticsPoints(answer: AnalyticsAnswer): AnalyticsPoint[] {
  return answer.days;
}

/** GET /subscriptions/plans names the price `btcAmount` (an invoice amount); the screens call it `btcPrice` as the site config does. */
function toPlan({ btcAmount, formerBtcAmount, ...plan }: PlanAnswer): Plan {
  return { ...plan, btcPrice: btcAmount, ...(formerBtcAmount ? { formerBtcPrice: formerBtcAmount } : {}) };
}

/** One page of a keyset-paged admin list. */
export interface ListPage<T> {
  items: T[];
  /** Give it back as `after` for the next page; null on the last page. */
  nextCursor: string | null;
  /** Every row of the list, not only this page's. */
  total: number;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/**
 * A client bound to one server and one session.
 * @example const api = createApiClient({ baseUrl: '/api' }); const { token, user } = await api.login(email, password);
 */
function chatPageQuery(page: { before?: string; after?: string }): string {
  const q = new URLSearchParams({ limit: '100' });
  if (page.before) q.set('before', page.before);
  if (page.after) q.set('after', page.after);
  return `?${q.toString()}`;
}

export function createApiClient(options: ApiClientOptions = {}) {
  const baseUrl = (options.baseUrl ?? '/api').replace(/\/+$/, '');
  const session = options.session ?? createSessionStore();
  const timeoutMs = options.timeoutMs ?? API_TIMEOUT_MS;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? UPLOAD_TIMEOUT_MS;
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const onUnauthorized = options.onUnauthorized ?? (() => defaultGo('/auth/login'));
  const onForbidden = options.onForbidden ?? (() => defaultGo('/blocked'));
  const sameOrigin = isSameOrigin(baseUrl);
  let refreshing: Promise<boolean> | undefined;

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

  async function send(
    method: string,
    path: string,
    opts: RequestOptions,
    auth = true,
  ): Promise<{ status: number; body: Envelope<unknown> }> {
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
      });
      const text = await res.text();
      let body: Envelope<unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Envelope<unknown>) : {};
      } catch {
        body = { success: false, error: res.ok ? 'The server sent an unreadable answer' : `Request failed (${res.status})` };
      }
      return { status: res.status, body };
    } catch (err) {
      if (controller.signal.aborted && !opts.signal?.aborted) throw new ApiError(0, 'The request timed out. Please try again.');
      if (opts.signal?.aborted) throw err;
      throw new ApiError(0, 'Network error. Please check your connection and try again.');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Exchanges the refresh cookie for a new access token; false (and logged out) when that fails. */
  function refreshSession(): Promise<boolean> {
    refreshing ??= (async () => {
      try {
        const { status, body } = await send('POST', '/auth/refresh', {}, false);
        const data = body.data as AuthResult | undefined;
        if (status >= 200 && status < 300 && body.success !== false && data?.token) {
          session.set(data.token, data.user ?? undefined);
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

  function fail(status: number, body: Envelope<unknown>, opts: RequestOptions): never {
    const message = body.error || opts.fallbackError || `Request failed (${status})`;
    const code = isErrorCode(body.code) ? body.code : undefined;
    if (status === 401 && opts.redirectOn401 !== false) {
      session.clear();
      onUnauthorized();
    } else if (status === 403 && opts.redirectOn403 !== false) {
      onForbidden(message, code);
    }
    throw new ApiError(status, message, body.details, code);
  }

  /** One call: envelope unwrapped into `data`, or an ApiError. */
  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const token = session.get().token;
    if (token && opts.redirectOn401 !== false && expired(token)) await refreshSession();
    let { status, body } = await send(method, path, opts);
    if (status === 401 && opts.redirectOn401 !== false && session.get().token) {
      if (await refreshSession()) ({ status, body } = await send(method, path, opts));
    }
    if (status < 200 || status >= 300 || body.success === false) fail(status, body, opts);
    return body.data as T;
  }

  /** A multipart upload through XMLHttpRequest, for its progress events (300 s timeout). */
  async function upload<T>(path: string, form: FormData, onProgress?: (fraction: number) => void, fallbackError?: string): Promise<T> {
    const token = session.get().token;
    if (token && expired(token)) await refreshSession();
    const { status, body } = await new Promise<{ status: number; body: Envelope<unknown> }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', url(path));
      xhr.timeout = uploadTimeoutMs;
      xhr.withCredentials = true;
      for (const [k, v] of Object.entries(headers(false))) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total);
      };
      xhr.onload = () => {
        let parsed: Envelope<unknown> = {};
        try {
          parsed = xhr.responseText ? JSON.parse(xhr.responseText) : {};
        } catch {
          parsed = { success: false, error: `Upload failed (${xhr.status})` };
        }
        resolve({ status: xhr.status, body: parsed });
      };
      xhr.onerror = () => reject(new ApiError(0, 'Network error during upload. Please try again.'));
      xhr.ontimeout = () => reject(new ApiError(0, 'The upload timed out. Please try again.'));
      xhr.send(form);
    });
    if (status < 200 || status >= 300 || body.success === false) fail(status, body, { fallbackError });
    return body.data as T;
  }

  /**
   * The video over tus (`/api/admin/uploads`, tus-js-client loaded on first use): a dropped
   * connection or a server restart is retried with back-off and resumes from the server's offset.
   * The last answer's `Upload-Video-Id` names the new video.
   */
  async function tusUpload(payload: UploadVideoPayload, onProgress?: (fraction: number) => void): Promise<{ videoId: string }> {
    const { Upload } = await import('tus-js-client');
    const file = payload.video;
    const fields: TusUploadMetadata = {
      filename: file instanceof File && file.name ? file.name : 'video',
      title: payload.title,
      description: payload.description,
      model: payload.model,
      durationText: payload.duration,
      accessLevel: payload.accessLevel,
      tags: payload.tags,
      categories: payload.categories,
    };
    // Empty values are left out (the server treats a missing key as not given).
    const metadata = Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => Boolean(e[1]?.trim())));
    const outcome = await new Promise<{ ok: true; videoId: string } | { ok: false; status: number; body: Envelope<unknown> }>((resolve) => {
      const upload = new Upload(file, {
        endpoint: url('/admin/uploads'),
        metadata,
        // About three minutes of trying before giving up.
        retryDelays: [0, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000, 60000],
        // Retry network failures even while the browser reports offline (it comes back); not refusals.
        onShouldRetry: (err) => {
          const status = err.originalResponse?.getStatus() ?? 0;
          return status === 0 || status >= 500 || status === 409 || status === 423 || status === 429;
        },
        async onBeforeRequest(req) {
          const token = session.get().token;
          if (token && expired(token)) await refreshSession();
          const fresh = session.get().token;
          if (fresh) req.setHeader('Authorization', `Bearer ${fresh}`);
        },
        onProgress: (sent, total) => onProgress?.(total ? sent / total : 0),
        onSuccess: ({ lastResponse }) => {
          const videoId = lastResponse.getHeader('Upload-Video-Id');
          resolve(videoId ? { ok: true, videoId } : { ok: false, status: 0, body: { error: 'The server named no video' } });
        },
        onError: (err) => {
          const res = (err as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
          if (!res) return resolve({ ok: false, status: 0, body: { error: 'Network error during upload. Please try again.' } });
          let body: Envelope<unknown> = {};
          try {
            body = JSON.parse(res.getBody() || '{}');
          } catch {
            body = { success: false, error: `Upload failed (${res.getStatus()})` };
          }
          resolve({ ok: false, status: res.getStatus(), body });
        },
      });
      upload.start();
    });
    if (!outcome.ok) fail(outcome.status, outcome.body, { fallbackError: 'Failed to upload video' });
    return { videoId: outcome.videoId };
  }

  /**
   * A file the API answers with the bearer token (not a link: the token is not a cookie), e.g. the
   * member's data export. The name comes from Content-Disposition.
   */
  async function download(path: string, opts: RequestOptions = {}, fallbackName = 'download'): Promise<{ blob: Blob; filename: string }> {
    const token = session.get().token;
    if (token && expired(token)) await refreshSession();
    const h = headers(false);
    h.Accept = '*/*';
    let res: Response;
    try {
      res = await doFetch(url(path, opts.query), { headers: h, credentials: 'include' });
    } catch {
      throw new ApiError(0, 'Network error. Please check your connection and try again.');
    }
    if (!res.ok) {
      let body: Envelope<unknown> = {};
      try {
        body = JSON.parse(await res.text()) as Envelope<unknown>;
      } catch {
        body = {};
      }
      fail(res.status, body, opts);
    }
    const disposition = res.headers.get('content-disposition') ?? '';
    const filename = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? fallbackName;
    return { blob: await res.blob(), filename };
  }

  const get = <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts);
  const post = <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, { ...opts, body });
  // Auth calls answer 401/403 as part of their result (wrong password, rejected account): no redirect.
  const noRedirect: RequestOptions = { redirectOn401: false, redirectOn403: false };

  return {
    baseUrl,
    session,
    request,
    upload,
    refreshSession,

    // identity
    /** A session, or `{ mfaRequired, mfaToken }` when a second factor is due (then call `verifyMfa`). */
    login: (email: string, password: string) =>
      post<LoginResult>('/auth/login', { email, password }, { ...noRedirect, fallbackError: 'Login failed' }),
    verifyMfa: (mfaToken: string, code: string) =>
      post<AuthResult>('/auth/mfa/verify', { mfaToken, code }, { ...noRedirect, fallbackError: 'Verification failed' }),
    mfaStatus: () => get<SecondFactorStatus>('/auth/mfa'),
    startMfaEnrolment: () => post<SecondFactorEnrolment>('/auth/mfa/enroll', undefined, { fallbackError: 'Could not start the setup' }),
    confirmMfaEnrolment: (code: string) =>
      post<SecondFactorStatus>('/auth/mfa/enroll/confirm', { code }, { redirectOn403: false, fallbackError: 'Could not confirm the code' }),
    disableMfa: (password: string, code: string) =>
      post<SecondFactorStatus>('/auth/mfa/disable', { password, code }, { ...noRedirect, fallbackError: 'Could not turn it off' }),
    register: (payload: RegistrationPayload) =>
      post<RegistrationAnswer>('/auth/register', payload, { ...noRedirect, fallbackError: 'Registration failed' }),
    logout: () => post<{ loggedOut: true }>('/auth/logout', undefined, noRedirect),
    requestPasswordReset: (email: string) => post<MessageAnswer>('/auth/reset-password', { email }, noRedirect),
    confirmPasswordReset: (token: string, password: string) =>
      post<MessageAnswer>('/auth/reset-password/confirm', { token, password }, noRedirect),
    verifyEmail: (token: string) => post<EmailVerified>('/auth/verify-email', { token }, noRedirect),
    approvalStatus: () => get<ApprovalStatus>('/users/approval-status'),
    getProfile: async (): Promise<User> => (await get<{ user: User }>('/users/profile')).user,
    updateProfile: async (profile: Pick<Partial<User>, 'firstName' | 'lastName'>): Promise<User> =>
      (await request<{ user: User }>('PUT', '/users/profile', { body: profile })).user,

    // account settings (a wrong password is an answer here, not an expired session)
    changePassword: (currentPassword: string, newPassword: string) =>
      post<{ message: string; otherSessionsEnded: number }>(
        '/users/me/password',
        { currentPassword, newPassword },
        { redirectOn401: false, fallbackError: 'Could not change the password' },
      ),
    requestEmailChange: (password: string, newEmail: string) =>
      post<{ message: string; pendingEmail: string }>(
        '/users/me/email',
        { password, newEmail },
        { redirectOn401: false, fallbackError: 'Could not change the email address' },
      ),
    confirmEmailChange: (token: string) =>
      post<{ email: string; message: string }>(
        '/auth/email-change/confirm',
        { token },
        { ...noRedirect, fallbackError: 'Could not confirm' },
      ),
    sessions: async (): Promise<AccountSession[]> => (await get<{ sessions: AccountSession[] }>('/users/me/sessions')).sessions,
    revokeSession: (id: string) =>
      request<{ revoked: true }>('DELETE', `/users/me/sessions/${encodeURIComponent(id)}`, {
        fallbackError: 'Could not sign out that session',
      }),
    revokeOtherSessions: () => request<{ revoked: number }>('DELETE', '/users/me/sessions', { fallbackError: 'Could not sign out' }),
    /** The member's mail settings (docs/chat.md: the mail when the team replies while they are offline). */
    notificationSettings: () => get<NotificationSettings>('/users/me/notifications'),
    setNotificationSettings: (settings: NotificationSettings) =>
      request<NotificationSettings>('PUT', '/users/me/notifications', { body: settings, fallbackError: 'Could not save the setting' }),
    /** The member's data: `json` (machine-readable, GDPR art. 20) or `html` (a readable summary). */
    exportMyData: (format: 'json' | 'html') =>
      download(
        '/users/me/export',
        { query: format === 'html' ? { format: 'html' } : {}, fallbackError: 'Could not download your data' },
        `my-data.${format}`,
      ),
    deleteAccount: (payload: DeleteAccountPayload) =>
      request<{ erased: boolean }>('DELETE', '/users/me', {
        body: payload,
        redirectOn401: false,
        redirectOn403: false,
        fallbackError: 'Could not delete the account',
      }),

    // catalog & streaming
    listVideos: (query: VideoQuery = {}) => get<VideoPage>('/videos', { query: { ...query } }),
    getVideo: (id: string) => get<Video>(`/videos/${encodeURIComponent(id)}`, { fallbackError: 'Failed to load video' }),
    getStream: (id: string) =>
      get<StreamInfo>(`/videos/${encodeURIComponent(id)}/stream`, { redirectOn403: false, fallbackError: 'Failed to load video stream' }),
    recordView: (id: string, duration: number) => post<ViewAnswer>(`/videos/${encodeURIComponent(id)}/view`, { duration }),
    geoCheck: () => get<GeoCheck>('/geo/check', { fallbackError: 'Failed to check geolocation' }),
    site: async (): Promise<SiteInfo> => {
      const { explorerTxUrl, adminEmail, ...d } = await get<SiteAnswer>('/site');
      return { ...d, ...(adminEmail ? { adminEmail } : {}), bitcoin: { explorerTxUrl } };
    },

    // billing
    plans: async (): Promise<Plan[]> => (await get<PlansAnswer>('/subscriptions/plans')).plans.map(toPlan),
    createSubscriptionIntent: (planType: PlanType) => post<SubscriptionIntent>('/payments/create-subscription-intent', { planType }),
    submitBitcoinPayment: (payment: BitcoinPaymentSubmission) =>
      post<SubmittedPayment>('/payments/submit-bitcoin-payment', payment, { fallbackError: 'Failed to submit payment' }),
    getSubscription: async (): Promise<Subscription | null> =>
      (await get<Subscription | null>('/payments/subscription', { fallbackError: 'Failed to load subscription' })) ?? null,
    cancelSubscription: () => post<Subscription | null>('/subscriptions/cancel', {}, { fallbackError: 'Failed to cancel subscription' }),
    reactivateSubscription: (subscriptionId: string) =>
      post<Subscription | null>(
        '/payments/reactivate-subscription',
        { subscriptionId },
        { fallbackError: 'Failed to reactivate subscription' },
      ),

    // admin
    adminStats: () => get<AdminStats>('/admin/stats'),
    /** The transcode runner tokens (last contact, revoked) and the runners heard from in the last 15 minutes. */
    adminRunners: () => get<AdminRunners>('/admin/runners', { fallbackError: 'Failed to load the transcode runners' }),
    /** The first page of the approval queue (oldest first); `pendingUsersPage` pages on. */
    pendingUsers: async (): Promise<PendingUser[]> => (await get<{ users: PendingUser[] }>('/admin/users/pending')).users,
    /** One keyset page of the approval queue: pass the previous page's `nextCursor` as `after`. */
    pendingUsersPage: async (after?: string | null): Promise<ListPage<PendingUser>> => {
      const a = await get<{ users: PendingUser[]; nextCursor: string | null; total: number }>('/admin/users/pending', {
        query: { after: after ?? undefined },
      });
      return { items: a.users, nextCursor: a.nextCursor ?? null, total: a.total };
    },
    approveUser: (id: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/approve`, {}, { fallbackError: 'Failed to approve user' }),
    rejectUser: (id: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/reject`, {}, { fallbackError: 'Failed to reject user' }),
    /** Suspends an approved member (their sessions end); `reason` is required and recorded. */
    suspendUser: (id: string, reason: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/suspend`, { reason }, { fallbackError: 'Failed to suspend the member' }),
    reinstateUser: (id: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/reinstate`, {}, { fallbackError: 'Failed to reinstate the member' }),
    findMembers: async (q: string): Promise<MemberListRow[]> =>
      (await get<{ users: MemberListRow[] }>('/admin/users', { query: { q }, fallbackError: 'Failed to load members' })).users,
    memberHistory: (id: string) =>
      get<MemberHistory>(`/admin/users/${encodeURIComponent(id)}/history`, { fallbackError: 'Failed to load the member' }),
    eraseMember: (id: string, reason: string) =>
      post<{ erased: boolean }>(
        `/admin/users/${encodeURIComponent(id)}/erase`,
        { reason },
        { fallbackError: 'Failed to erase the member' },
      ),
    /** The first page of submitted payments (oldest first); `pendingPaymentsPage` pages on. */
    pendingPayments: async (): Promise<PendingPayment[]> =>
      (await get<{ payments: PendingPayment[]; count: number }>('/admin/pending-payments')).payments,
    /** One keyset page of submitted payments: pass the previous page's `nextCursor` as `after`. */
    pendingPaymentsPage: async (after?: string | null): Promise<ListPage<PendingPayment>> => {
      const a = await get<{ payments: PendingPayment[]; count: number; nextCursor: string | null }>('/admin/pending-payments', {
        query: { after: after ?? undefined },
      });
      return { items: a.payments, nextCursor: a.nextCursor ?? null, total: a.count };
    },
    verifyPayment: (id: string) =>
      post<VerifiedPayment>(`/admin/payments/${encodeURIComponent(id)}/verify`, {}, { fallbackError: 'Failed to verify payment' }),
    rejectPayment: (id: string, reason: string) =>
      post<RejectedPayment>(`/admin/payments/${encodeURIComponent(id)}/reject`, { reason }, { fallbackError: 'Failed to reject payment' }),
    adminVideos: (query: VideoQuery = {}) =>
      get<AdminVideoPage>('/admin/videos', { query: { ...query }, fallbackError: 'Failed to load videos' }),
    updateVideo: (id: string, changes: AdminVideoChanges) =>
      request<AdminVideo>('PUT', `/admin/videos/${encodeURIComponent(id)}`, { body: changes, fallbackError: 'Failed to update video' }),
    retryTranscode: (id: string) =>
      post<{ videoId: string; status: 'queued' }>(
        `/admin/videos/${encodeURIComponent(id)}/transcode/retry`,
        {},
        {
          fallbackError: 'Failed to retry the transcode',
        },
      ),
    deleteVideo: (id: string) =>
      request<DeletedVideo>('DELETE', `/admin/videos/${encodeURIComponent(id)}`, {
        fallbackError: 'Failed to delete video',
      }),
    /** Adds a caption track (.vtt or .srt); the same language replaces it (docs/videos.md#captions). */
    addCaption: (id: string, file: Blob, language: string, label?: string, fileName = 'captions.vtt') => {
      const form = new FormData();
      form.append('language', language);
      if (label) form.append('label', label);
      form.append('file', file, fileName);
      return request<AddedCaption>('POST', `/admin/videos/${encodeURIComponent(id)}/captions`, {
        body: form,
        fallbackError: 'Failed to add captions',
      });
    },
    removeCaption: (id: string, language: string) =>
      request<DeletedCaption>('DELETE', `/admin/videos/${encodeURIComponent(id)}/captions/${encodeURIComponent(language)}`, {
        fallbackError: 'Failed to remove captions',
      }),
    // leak tracing (docs/leak-tracing.md)
    /** Past examinations (newest first), whether this server marks streams, and the largest copy accepted. */
    leakExaminations: () => get<LeakExaminations>('/admin/leaks/examinations', { fallbackError: 'Failed to load the examinations' }),
    /** Sends a leaked copy to be examined in the background: poll `leakExamination(id)` for the outcome. */
    examineLeakCopy: (file: Blob, opts: { videoId?: string; fileName?: string } = {}, onProgress?: (fraction: number) => void) => {
      const form = new FormData();
      // Fields first, the file last: the server streams the file to disk as it arrives.
      if (opts.videoId) form.set('videoId', opts.videoId);
      form.set('file', file, opts.fileName ?? (file instanceof File && file.name ? file.name : 'copy'));
      return upload<LeakExamination>('/admin/leaks/examinations', form, onProgress, 'Failed to send the copy');
    },
    leakExamination: (id: string) =>
      get<LeakExamination>(`/admin/leaks/examinations/${encodeURIComponent(id)}`, { fallbackError: 'Failed to load the examination' }),
    analytics: async (): Promise<AnalyticsPoint[]> => toAnalyticsPoints(await get<AnalyticsAnswer>('/admin/analytics')),

    // chat (docs/chat.md)
    chatMessages: async (page: { before?: string; after?: string } = {}): Promise<ChatMessage[]> =>
      (await get<{ messages: ChatMessage[] }>(`/chat/messages${chatPageQuery(page)}`)).messages,
    sendChatMessage: async (text: string): Promise<ChatMessage> =>
      (
        await post<{ message: ChatMessage }>(
          '/chat/messages',
          { text },
          { redirectOn403: false, fallbackError: 'Could not send the message' },
        )
      ).message,
    chatStatus: () => get<ChatStatus>('/chat/status'),
    markChatRead: () => post<{ read: number }>('/chat/read'),
    /** The WebSocket URL with a fresh single-use ticket (`after`: resume after that message). */
    chatSocketUrl: async (after?: string | null): Promise<string> => {
      const { ticket } = await post<{ ticket: string }>('/chat/ticket');
      const url = new URL(`${baseUrl}/chat/socket`, globalThis.location?.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      url.searchParams.set('ticket', ticket);
      if (after) url.searchParams.set('after', after);
      return url.toString();
    },
    chatConversations: async (): Promise<ChatConversation[]> =>
      (await get<{ conversations: ChatConversation[] }>('/admin/chat/conversations')).conversations,
    memberChatMessages: async (userId: string): Promise<ChatMessage[]> =>
      (await get<{ messages: ChatMessage[] }>(`/admin/chat/conversations/${encodeURIComponent(userId)}/messages?limit=100`)).messages,
    replyToMember: async (userId: string, text: string): Promise<ChatMessage> =>
      (
        await post<{ message: ChatMessage }>(
          `/admin/chat/conversations/${encodeURIComponent(userId)}/messages`,
          { text },
          {
            fallbackError: 'Could not send the reply',
          },
        )
      ).message,
    // custom video requests (annual plan, docs/chat.md)
    customRequests: async (): Promise<CustomRequest[]> => (await get<{ requests: CustomRequest[] }>('/custom-requests')).requests,
    requestCustomVideo: async (description: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          '/custom-requests',
          { description },
          { redirectOn403: false, fallbackError: 'Could not send the request' },
        )
      ).request,
    payCustomRequest: (id: string, transactionHash?: string) =>
      post<CustomRequestPayment>(`/custom-requests/${encodeURIComponent(id)}/pay`, transactionHash ? { transactionHash } : {}, {
        redirectOn403: false,
        fallbackError: 'Could not open the payment',
      }),
    adminCustomRequests: async (): Promise<AdminCustomRequest[]> =>
      (await get<{ requests: AdminCustomRequest[] }>('/admin/custom-requests')).requests,
    quoteCustomRequest: async (id: string, btcAmount: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          `/admin/custom-requests/${encodeURIComponent(id)}/quote`,
          { btcAmount },
          { fallbackError: 'Could not quote' },
        )
      ).request,
    declineCustomRequest: async (id: string, reason: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          `/admin/custom-requests/${encodeURIComponent(id)}/decline`,
          { reason },
          { fallbackError: 'Could not decline' },
        )
      ).request,
    deliverCustomRequest: async (id: string, videoId: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          `/admin/custom-requests/${encodeURIComponent(id)}/deliver`,
          { videoId },
          { fallbackError: 'Could not deliver' },
        )
      ).request,
    markMemberChatRead: (userId: string) => post<{ read: number }>(`/admin/chat/conversations/${encodeURIComponent(userId)}/read`),
    uploadVideo: (payload: UploadVideoPayload, onProgress?: (fraction: number) => void) => {
      // Without a thumbnail file everything fits in tus metadata: resumable, survives a dropped connection.
      if (!payload.thumbnail) return tusUpload(payload, onProgress);
      const form = new FormData();
      form.set('title', payload.title);
      form.set('description', payload.description);
      form.set('model', payload.model);
      form.set('duration', payload.duration);
      if (payload.accessLevel) form.set('accessLevel', payload.accessLevel);
      if (payload.tags) form.set('tags', payload.tags);
      if (payload.categories) form.set('categories', payload.categories);
      // Text fields first, files last: the server streams the files as they arrive.
      form.set('video', payload.video);
      if (payload.thumbnail) form.set('thumbnail', payload.thumbnail);
      return upload<{ videoId: string }>('/admin/upload-video', form, onProgress, 'Failed to upload video');
    },
  };
}
