/** The typed API client, the browser session and the API's shapes. */
export { API_TIMEOUT_MS, ApiError, type ApiClient, type ApiClientOptions, createApiClient, type RequestOptions, toAnalyticsPoints, UPLOAD_TIMEOUT_MS } from './client';
export { createSessionStore, STORAGE_KEYS, type SessionState, type SessionStore, tokenExpiry } from './session';
export type * from './types';
