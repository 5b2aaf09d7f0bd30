/** The typed API client, the browser session and the API's shapes. */
export {
  API_TIMEOUT_MS,
  type ApiClient,
  type ApiClientOptions,
  ApiError,
  createApiClient,
  type Envelope,
  type Exchange,
  type ListPage,
  type RequestOptions,
  TUS_PATH,
  TUS_RETRYABLE_STATUS,
  TusAttemptError,
  type TusAttemptOptions,
  toAnalyticsPoints,
  tusAttempt,
  tusMetadata,
  tusRefusal,
  tusTerminate,
  UPLOAD_TIMEOUT_MS,
  VIDEO_ID_HEADER,
} from './client';
export { ERROR_CODES, type ErrorCode, isErrorCode } from './schemas/errorCodes';
export { isMfaChallenge, SECOND_FACTOR_ENROLMENT_REQUIRED } from './secondFactor';
export { createSessionStore, type SessionState, type SessionStore, STORAGE_KEYS, tokenExpiry } from './session';
export type * from './types';
