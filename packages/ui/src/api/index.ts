/** The typed API client, the browser session and the API's shapes. */
export {
  API_TIMEOUT_MS,
  type ApiClient,
  type ApiClientOptions,
  ApiError,
  createApiClient,
  type ListPage,
  type RequestOptions,
  toAnalyticsPoints,
  UPLOAD_TIMEOUT_MS,
} from './client';
export { ERROR_CODES, type ErrorCode, isErrorCode } from './schemas/errorCodes';
export { isMfaChallenge, SECOND_FACTOR_ENROLMENT_REQUIRED } from './secondFactor';
export { createSessionStore, type SessionState, type SessionStore, STORAGE_KEYS, tokenExpiry } from './session';
export type * from './types';
