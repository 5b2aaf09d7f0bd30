/**
 * What every use case (`<area>/*.service.ts`) answers: a value, or an expected failure named by its
 * kind. Services never throw for an expected refusal, so the CLI, a job or a test can call them
 * without HTTP; routes turn a failure into a status with `httpStatusOf` (http/envelope.ts).
 * Unexpected faults (a lost database) still throw.
 */
import type { DomainError, DomainErrorCode } from './decider.js';

export type ErrorKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited';

export interface ServiceError {
  kind: ErrorKind;
  message: string;
  /** With `rate_limited`: when to try again (the `Retry-After` header, seconds). */
  retryAfterSeconds?: number;
}

export type Failure = { ok: false; error: ServiceError };
export type Result<T> = { ok: true; value: T } | Failure;

export const success = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const failure = (kind: ErrorKind, message: string): Failure => ({ ok: false, error: { kind, message } });

/** A `rate_limited` failure that says when to try again (whole seconds, at least 1). */
export const rateLimited = (message: string, retryAfterMs: number): Failure => ({
  ok: false,
  error: { kind: 'rate_limited', message, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) },
});

const kindOfDomainCode: Record<DomainErrorCode, ErrorKind> = {
  validation: 'invalid',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  conflict: 'conflict',
};

/** A decider's refusal as a service failure. */
export const fromDomain = (error: DomainError): Failure => failure(kindOfDomainCode[error.code], error.message);
