/**
 * What every use case (`<area>/*.service.ts`) answers: a value, or an expected failure as an
 * `AppError` (shared/errors.ts). Services never throw for an expected refusal, so the CLI, a job or
 * a test can call them without HTTP; routes throw a failure with `valueOr` (http/envelope.ts).
 * A decider's refusal is already such a failure. Unexpected faults (a lost database) still throw.
 */
import { type AppError, appError, type ErrorCode } from './errors.js';

export type Failure = { ok: false; error: AppError };
export type Result<T> = { ok: true; value: T } | Failure;

export const success = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const failure = (code: ErrorCode, message: string): Failure => ({ ok: false, error: appError(code, message) });

/**
 * A result a job expects to succeed (the scheduler's own commands, a `Result` or a command
 * handler's), narrowed to its success: a failure there is a fault, thrown with `context` naming
 * the job, not a refusal to answer.
 */
export function successOrThrow<R extends { ok: true } | { ok: false; error: { message: string } }>(
  result: R,
  context: string,
): Extract<R, { ok: true }> {
  if (!result.ok) throw new Error(`${context}: ${(result as { error: { message: string } }).error.message}`);
  return result as Extract<R, { ok: true }>;
}

/** A `rate_limited` failure that says when to try again (whole seconds, at least 1). */
export const rateLimited = (message: string, retryAfterMs: number): Failure => ({
  ok: false,
  error: appError('rate_limited', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) }),
});
