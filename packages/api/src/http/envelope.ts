/**
 * Every JSON answer is `{ success: true, data }` or `{ success: false, error, code, details? }`.
 * Handlers return `ok(c, data)` or throw an `HttpError` (an AppError of shared/errors.ts, thrown);
 * the app's error handler turns anything else into a logged 500 with no internals. A service's
 * failure is thrown as it is with `valueOr`.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type AppError, appError, type ErrorCode } from '../shared/errors.js';
import type { Result } from '../shared/result.js';

/** An AppError thrown from a route (or a middleware) and answered by the app's error handler. */
export class HttpError extends Error implements AppError {
  readonly code: ErrorCode;
  readonly status: ContentfulStatusCode;
  readonly details?: unknown;
  /** Sent as `Retry-After` (seconds); every 429 carries one (app.ts). */
  readonly retryAfterSeconds?: number;

  constructor(error: AppError);
  constructor(code: ErrorCode, message: string, details?: unknown);
  constructor(codeOrError: ErrorCode | AppError, message?: string, details?: unknown) {
    const e = typeof codeOrError === 'string' ? appError(codeOrError, message ?? '', { details }) : codeOrError;
    super(e.message);
    this.name = 'HttpError';
    this.code = e.code;
    this.status = e.status as ContentfulStatusCode;
    if (e.details !== undefined) this.details = e.details;
    if (e.retryAfterSeconds !== undefined) this.retryAfterSeconds = e.retryAfterSeconds;
  }
}

/** A 429 that says when to try again. */
export const tooManyRequests = (message: string, retryAfterSeconds: number): HttpError =>
  new HttpError(appError('rate_limited', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) }));

/** A service result's value, or its failure thrown (routes only). */
export function valueOr<T>(result: Result<T>): T {
  if (!result.ok) throw new HttpError(result.error);
  return result.value;
}

export function ok<T>(c: Context, data: T, status: ContentfulStatusCode = 200) {
  return c.json({ success: true, data }, status);
}

/** The refusal's envelope, for middleware that answers without throwing. */
export function fail(c: Context, error: AppError) {
  const { code, message, details } = error;
  return c.json(
    details === undefined ? { success: false, error: message, code } : { success: false, error: message, code, details },
    error.status as ContentfulStatusCode,
  );
}

/** `fail` for one code and message. */
export const refuse = (c: Context, code: ErrorCode, message: string, details?: unknown) => fail(c, appError(code, message, { details }));
