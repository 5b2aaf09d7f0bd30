/**
 * Rate limits on the auth endpoints, with defaults a normal person never meets: per IP, 60 auth
 * requests a minute over login, registration and password reset; per account, 10 failed logins in
 * 15 minutes (then even the right password waits). Counted on the injected clock, in memory on
 * the embedded store and in PostgreSQL (shared by every API process) otherwise.
 */
import { createHmac } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.js';
import { clientIp } from '../geo/lookup.js';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError } from '../http/envelope.js';
import { createRateLimiter, type RateLimiter } from '../shared/rateLimit.js';
import { type Failure, failure } from '../shared/result.js';

export interface AuthLimits {
  perIp: RateLimiter;
  failedLogins: RateLimiter;
}

/**
 * Counts under an HMAC of the key, never the key itself: the failed-login counters are keyed by the
 * address typed at login, and on PostgreSQL they are a table, so an address (an erased member's too,
 * typed by anyone after the erasure) would otherwise sit in the database's bytes.
 */
function keyedByHmac(limiter: RateLimiter, secret: string): RateLimiter {
  const k = (key: string) => createHmac('sha256', secret).update(`login-failures\n${key}`).digest('base64url').slice(0, 32);
  return {
    hit: (key) => limiter.hit(k(key)),
    isBlocked: (key) => limiter.isBlocked(k(key)),
    reset: (key) => limiter.reset(k(key)),
  };
}

export function createAuthLimits(ctx: AppContext): AuthLimits {
  const now = () => ctx.clock.now().getTime();
  return {
    perIp: createRateLimiter(ctx.db, 'auth-per-ip', ctx.env.AUTH_REQUESTS_PER_IP_PER_MINUTE, 60_000, now),
    failedLogins: keyedByHmac(
      createRateLimiter(ctx.db, 'login-failures', ctx.env.LOGIN_FAILURES_PER_ACCOUNT, ctx.env.LOGIN_FAILURE_WINDOW_MINUTES * 60_000, now),
      ctx.env.TOKEN_SECRET ?? 'login-failures',
    ),
  };
}

export const tooManyRequests = (message: string) => new HttpError(429, message);

export function limitPerIp(ctx: AppContext, limits: AuthLimits): MiddlewareHandler<AppEnv> {
  return async function authRequestsPerIp(c, next) {
    const ip = clientIp(c, ctx.env) ?? 'unknown';
    if (!(await limits.perIp.hit(ip))) throw tooManyRequests('Too many requests from your network. Please wait a minute and try again.');
    await next();
  };
}

/** The refusal when the account has used up its failed logins, else undefined. */
export async function loginBlocked(ctx: AppContext, limits: AuthLimits, emailKey: string): Promise<Failure | undefined> {
  if (!(await limits.failedLogins.isBlocked(emailKey))) return undefined;
  return failure(
    'rate_limited',
    `Too many failed login attempts for this account. Please try again in ${ctx.env.LOGIN_FAILURE_WINDOW_MINUTES} minutes or reset your password.`,
  );
}
