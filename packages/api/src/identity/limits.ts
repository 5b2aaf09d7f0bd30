/**
 * Rate limits on the auth endpoints, with defaults a normal person never meets (NIST SP 800-63B
 * §5.2.2: throttle guessing without letting anyone lock the holder out):
 * - per client address, 60 auth requests a minute over login, registration and password reset;
 * - per (account, client address), `LOGIN_FAILURES_PER_ADDRESS` free failed logins, then exponential
 *   backoff (1 s, 2 s, 4 s … up to `LOGIN_BACKOFF_MAX_MINUTES`) before that address may try that
 *   account again; the count is forgotten after a day without failures or at a successful login.
 *   Someone guessing from one address slows down only themselves: the holder signs in from theirs.
 * - per account, a much higher ceiling over every address (`LOGIN_FAILURES_PER_ACCOUNT` per
 *   `LOGIN_FAILURE_WINDOW_MINUTES`, 100 an hour by default) against guessing from many addresses;
 *   only beyond it does the account itself wait.
 * Every refusal is a 429 with `Retry-After`. Counted on the injected clock, in memory on the embedded
 * store and in PostgreSQL (shared by every API process) otherwise.
 */
import { createHmac } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { createRateLimiter, type RateLimiter } from '../db/rateLimit.js';
import { clientIp } from '../geo/index.js';
import type { AppEnv } from '../http/appEnv.js';
import { tooManyRequests } from '../http/envelope.js';
import type { AppContext } from '../kernel/context.js';
import { type Failure, rateLimited } from '../shared/result.js';
import { MFA_TOKEN_TTL_SECONDS } from './mfaToken.js';

/** Failed logins of one account from one address: counted, forgotten, and how long the next try waits. */
export interface FailedLogins {
  /** Counts a failed proof (password or second factor) for the account, from `address` when known. */
  hit(account: string, address?: string): Promise<void>;
  /** After a success (or a reset): clears the account's count and, with `address`, that address's. */
  reset(account: string, address?: string): Promise<void>;
  /** How long (ms) the account must wait from `address` (0: it may try now), and why. */
  wait(account: string, address?: string): Promise<{ ms: number; reason: 'address' | 'account' } | undefined>;
}

export interface AuthLimits {
  perIp: RateLimiter;
  failedLogins: FailedLogins;
  /**
   * Second-factor challenge tokens (their `jti`) being used or used: a count of 1 per token for its
   * lifetime, so a token gives one session (mfa.service.ts). Atomic on PostgreSQL across processes.
   */
  spentChallenges: RateLimiter;
}

/** A pair's failures are forgotten after this long without one (longer than any backoff). */
export const ADDRESS_FAILURES_FORGOTTEN_MS = 24 * 60 * 60_000;
const BACKOFF_BASE_MS = 1000;

/**
 * Counts under an HMAC of the key, never the key itself: the failed-login counters are keyed by the
 * address typed at login (and the client address), and on PostgreSQL they are a table, so an address
 * (an erased member's too, typed by anyone after the erasure) would otherwise sit in the database's bytes.
 */
export function keyedByHmac(limiter: RateLimiter, secret: string, scope: string): RateLimiter {
  const k = (key: string) => createHmac('sha256', secret).update(`${scope}\n${key}`).digest('base64url').slice(0, 32);
  return {
    hit: (key) => limiter.hit(k(key)),
    isBlocked: (key) => limiter.isBlocked(k(key)),
    peek: (key) => limiter.peek(k(key)),
    reset: (key) => limiter.reset(k(key)),
  };
}

/**
 * The client address as one party: an IPv6 address by its /64 (one subscriber's network hands out
 * the whole prefix, so per-address counting would give a guesser 2^64 fresh starts), IPv4 as it is.
 */
export function addressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare) || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(bare)) return bare.replace(/^::ffff:/i, '');
  const [head = '', tail = ''] = bare.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = bare.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Each context's limits, shared by identity's routes and privacy's (one count of failed passwords per account). */
const perContext = new WeakMap<AppContext, AuthLimits>();

export function authLimitsOf(ctx: AppContext): AuthLimits {
  let limits = perContext.get(ctx);
  if (!limits) {
    limits = createAuthLimits(ctx);
    perContext.set(ctx, limits);
  }
  return limits;
}

export function createAuthLimits(ctx: AppContext): AuthLimits {
  const now = () => ctx.clock.now().getTime();
  const secret = ctx.env.TOKEN_SECRET ?? 'login-failures';
  const env = ctx.env;
  const accountWindowMs = env.LOGIN_FAILURE_WINDOW_MINUTES * 60_000;
  const perAccount = keyedByHmac(
    createRateLimiter(ctx.db, 'login-failures', env.LOGIN_FAILURES_PER_ACCOUNT, accountWindowMs, now),
    secret,
    'login-failures',
  );
  // A sliding window: `resetAt - window` is the last failure, which the backoff counts from.
  const perPair = keyedByHmac(
    createRateLimiter(ctx.db, 'login-failures-address', env.LOGIN_FAILURES_PER_ADDRESS, ADDRESS_FAILURES_FORGOTTEN_MS, now, {
      sliding: true,
    }),
    secret,
    'login-failures-address',
  );
  const pairKey = (account: string, address: string) => `${account}\n${addressKey(address)}`;
  const maxBackoffMs = env.LOGIN_BACKOFF_MAX_MINUTES * 60_000;

  return {
    perIp: createRateLimiter(ctx.db, 'auth-per-ip', env.AUTH_REQUESTS_PER_IP_PER_MINUTE, 60_000, now),
    // Kept a minute past the token's own expiry, so no clock step between the two reopens it.
    spentChallenges: createRateLimiter(ctx.db, 'mfa-challenge-spent', 1, (MFA_TOKEN_TTL_SECONDS + 60) * 1000, now),
    failedLogins: {
      async hit(account, address) {
        await perAccount.hit(account);
        if (address !== undefined) await perPair.hit(pairKey(account, address));
      },
      async reset(account, address) {
        await perAccount.reset(account);
        if (address !== undefined) await perPair.reset(pairKey(account, address));
      },
      async wait(account, address) {
        const t = now();
        const total = await perAccount.peek(account);
        if (total && total.count >= env.LOGIN_FAILURES_PER_ACCOUNT) return { ms: total.resetAt - t, reason: 'account' };
        if (address === undefined) return undefined;
        const pair = await perPair.peek(pairKey(account, address));
        if (!pair || pair.count < env.LOGIN_FAILURES_PER_ADDRESS) return undefined;
        const lastFailure = pair.resetAt - ADDRESS_FAILURES_FORGOTTEN_MS;
        const backoff = Math.min(BACKOFF_BASE_MS * 2 ** Math.min(pair.count - env.LOGIN_FAILURES_PER_ADDRESS, 30), maxBackoffMs);
        const ms = lastFailure + backoff - t;
        return ms > 0 ? { ms, reason: 'address' } : undefined;
      },
    },
  };
}

/** "1 second", "45 seconds", "15 minutes": how long, for a person. */
function howLong(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 60) return `${s} second${s === 1 ? '' : 's'}`;
  const m = Math.ceil(s / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
}

export function limitPerIp(ctx: AppContext, limits: AuthLimits): MiddlewareHandler<AppEnv> {
  return async function authRequestsPerIp(c, next) {
    const ip = clientIp(c, ctx.env) ?? 'unknown';
    if (!(await limits.perIp.hit(ip))) {
      const window = await limits.perIp.peek(ip);
      const retryMs = window ? window.resetAt - ctx.clock.now().getTime() : 60_000;
      throw tooManyRequests('Too many requests from your network. Please wait a minute and try again.', retryMs / 1000);
    }
    await next();
  };
}

/**
 * The refusal (429 with Retry-After) when this account may not be tried now, from `address` when
 * known (login and the second-factor step) or at all (signed-in password checks count per account).
 */
export async function loginBlocked(_ctx: AppContext, limits: AuthLimits, emailKey: string, address?: string): Promise<Failure | undefined> {
  const wait = await limits.failedLogins.wait(emailKey, address);
  if (!wait) return undefined;
  const who = wait.reason === 'address' ? 'from your network for this account' : 'for this account';
  return rateLimited(`Too many failed login attempts ${who}. Please try again in ${howLong(wait.ms)} or reset your password.`, wait.ms);
}
