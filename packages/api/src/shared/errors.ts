/**
 * The one error vocabulary of the API: an `AppError` is a refusal named by a stable, dotted code
 * from the catalogue (`@members/ui/api/schemas` errorCodes.ts, which the OpenAPI document and the
 * clients read too), its HTTP status (the code's, from the catalogue), the message to show and,
 * for a 400, the per-field details. Deciders reject with one, services fail with one, routes throw
 * one (http/envelope.ts `HttpError`) and the envelope carries its code: no table translates one
 * vocabulary into another.
 */
import { ERROR_CODES, type ErrorCode, isErrorCode } from '@members/ui/api/schemas';

export { type ErrorCode, isErrorCode };

export interface AppError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly message: string;
  /** With `validation.invalid_body`: every problem, `{ path, message }`. */
  readonly details?: unknown;
  /** With `rate_limited`: when to try again (the `Retry-After` header, seconds). */
  readonly retryAfterSeconds?: number;
}

/** The catalogued status of a code. */
export const statusOf = (code: ErrorCode): number => ERROR_CODES[code].status;

/**
 * An AppError as plain data (deciders stay pure and comparable with `toEqual`). `status` overrides
 * the code's own only for refusals passed through from a protocol library (tus).
 */
export function appError(
  code: ErrorCode,
  message: string,
  extra: { details?: unknown; retryAfterSeconds?: number; status?: number } = {},
): AppError {
  return {
    code,
    status: extra.status ?? statusOf(code),
    message,
    ...(extra.details === undefined ? {} : { details: extra.details }),
    ...(extra.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds }),
  };
}
