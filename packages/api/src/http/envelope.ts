/**
 * Every JSON answer is `{ success, data?, error? }`. Handlers return `ok(c, data)` or throw
 * `HttpError`; the app's error handler turns anything else into a logged 500 with no internals.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError, DomainErrorCode } from '../shared/decider.js';

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Authentication required') => new HttpError(401, message);
export const forbidden = (message = "You don't have permission to do that") => new HttpError(403, message);
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);

const statusOf: Record<DomainErrorCode, ContentfulStatusCode> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

export function fromDomainError(error: DomainError): HttpError {
  return new HttpError(statusOf[error.code], error.message);
}

export function ok<T>(c: Context, data: T, status: ContentfulStatusCode = 200) {
  return c.json({ success: true, data }, status);
}

export function fail(c: Context, status: ContentfulStatusCode, error: string, details?: unknown) {
  return c.json(details === undefined ? { success: false, error } : { success: false, error, details }, status);
}
