/**
 * Every JSON answer is `{ success, data?, error? }`. Handlers return `ok(c, data)` or throw
 * `HttpError`; the app's error handler turns anything else into a logged 500 with no internals.
 * A service's failure becomes an HttpError through `httpStatusOf` (`valueOr` does both steps).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorKind, Result, ServiceError } from '../shared/result.js';

export class HttpError extends Error {
  /** Sent as `Retry-After` (seconds); every 429 carries one (app.ts). */
  retryAfterSeconds?: number;

  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A 429 that says when to try again. */
export function tooManyRequests(message: string, retryAfterSeconds: number): HttpError {
  const err = new HttpError(429, message);
  err.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return err;
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Authentication required') => new HttpError(401, message);
export const forbidden = (message = "You don't have permission to do that") => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);

const statusOfKind: Record<ErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
};

/** The HTTP status for a service error kind. */
export const httpStatusOf = (kind: ErrorKind): ContentfulStatusCode => statusOfKind[kind];

export const httpErrorOf = (error: ServiceError): HttpError =>
  error.kind === 'rate_limited'
    ? tooManyRequests(error.message, error.retryAfterSeconds ?? 60)
    : new HttpError(httpStatusOf(error.kind), error.message);

/** A service result's value, or its failure thrown as the matching HttpError (routes only). */
export function valueOr<T>(result: Result<T>): T {
  if (!result.ok) throw httpErrorOf(result.error);
  return result.value;
}

export function ok<T>(c: Context, data: T, status: ContentfulStatusCode = 200) {
  return c.json({ success: true, data }, status);
}

export function fail(c: Context, status: ContentfulStatusCode, error: string, details?: unknown) {
  return c.json(details === undefined ? { success: false, error } : { success: false, error, details }, status);
}
