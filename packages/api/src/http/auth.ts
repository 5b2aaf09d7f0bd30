/**
 * Bearer access tokens (HS256 JWT, short-lived) and the guards every route uses. Roles and approval
 * are read from the users read model on each guarded call, so an approval or a role change takes
 * effect at once and a stale token never grants more than the server now allows.
 */

import { SECOND_FACTOR_ENROLMENT_REQUIRED } from '@members/ui/secondFactor';
import { can, isStaffRole, permissionRequired, type StaffPermission, type StaffRole } from '@members/ui/staffRoles';
import type { Context, MiddlewareHandler } from 'hono';
import { sign, verify } from 'hono/jwt';
import type { Env } from '../config/env.js';
import type { Clock } from '../shared/clock.js';
import type { AccountStanding, AppEnv, Authenticator, AuthInfo } from './appEnv.js';

export type { AccountStanding, Authenticator };

/**
 * What tokens and guards need of the app's context: its settings and its clock. A port, not the
 * context's type: the routes layer sits below the kernel (kernel/context.ts builds the context from
 * every part, this file among its users), so naming the context here would be a cycle.
 */
export interface TokenContext {
  env: Pick<Env, 'TOKEN_SECRET' | 'ACCESS_TOKEN_TTL_SECONDS' | 'REQUIRE_ADMIN_2FA'>;
  clock: Clock;
}

import { HttpError } from './envelope.js';

/** Each context's authenticator, as `authenticate` received it (createApp mounts it before every route). */
export interface AccessClaims {
  sub: string;
  role: 'admin' | 'member';
  typ: 'access';
  iat: number;
  exp: number;
  /** The refresh session the token was issued for (absent for tokens signed outside a login, e.g. in tests). */
  sid?: string;
}

export async function signAccessToken(
  ctx: TokenContext,
  user: { id: string; role: 'admin' | 'member'; sessionId?: string | undefined },
): Promise<string> {
  const iat = Math.floor(ctx.clock.now().getTime() / 1000);
  const claims: AccessClaims = { sub: user.id, role: user.role, typ: 'access', iat, exp: iat + ctx.env.ACCESS_TOKEN_TTL_SECONDS };
  if (user.sessionId) claims.sid = user.sessionId;
  return sign({ ...claims }, tokenSecret(ctx), 'HS256');
}

export function tokenSecret(ctx: TokenContext): string {
  const secret = ctx.env.TOKEN_SECRET;
  if (!secret) throw new Error('TOKEN_SECRET is not set (main.ts sets a dev default)');
  return secret;
}

/**
 * Tokens whose signature already verified, per context: WebCrypto's key import and HMAC cost more
 * than the rest of a cached JSON request (measured: a third of the CPU of GET /api/videos/{id}).
 * Only the signature check is skipped; expiry is still checked on every use. Bounded: cleared when full.
 */
const verifiedTokens = new WeakMap<TokenContext, Map<string, AccessClaims>>();
const VERIFIED_MAX = 10_000;

async function verifiedClaims(ctx: TokenContext, token: string): Promise<AccessClaims> {
  let cache = verifiedTokens.get(ctx);
  if (!cache) {
    cache = new Map();
    verifiedTokens.set(ctx, cache);
  }
  const hit = cache.get(token);
  if (hit) return hit;
  // Expiry and issue time are checked against the injected clock, not the wall clock, so tests can move time.
  const claims = (await verify(token, tokenSecret(ctx), { alg: 'HS256', exp: false, iat: false })) as unknown as AccessClaims;
  if (cache.size >= VERIFIED_MAX) cache.clear();
  cache.set(token, claims);
  return claims;
}

export async function verifyAccessToken(ctx: TokenContext, token: string): Promise<AuthInfo | undefined> {
  try {
    const claims = await verifiedClaims(ctx, token);
    if (claims.typ !== 'access' || typeof claims.sub !== 'string') return undefined;
    if (claims.exp * 1000 <= ctx.clock.now().getTime()) return undefined;
    const auth: AuthInfo = { userId: claims.sub, role: claims.role === 'admin' ? 'admin' : 'member' };
    if (typeof claims.sid === 'string') auth.sessionId = claims.sid;
    return auth;
  } catch {
    return undefined;
  }
}

/**
 * What an admin who must still enrol a second factor (REQUIRE_ADMIN_2FA) may reach with their
 * token: the auth routes (enrolment, logout, refresh) and the public site information a visitor
 * gets anyway. Everything else answers 403.
 */
const ALLOWED_BEFORE_ENROLMENT = /^\/(auth\/|site$|health$|geo\/check$)/;

/** The API path under /api, as the route table names it. */
const apiPath = (path: string) => path.replace(/^\/api(?=\/)/, '');

/**
 * The transcode runners' API: it reads its own bearer token, a runner token (transcode/runnerApi.routes.ts).
 * Not its job file routes, whose signed URL is the credential: a bearer token there is checked like anywhere.
 */
const RUNNER_ROUTES = /^\/runners\/(?!files\/)/;

/**
 * Reads the bearer token when present; a present but invalid or expired token is a 401. With
 * REQUIRE_ADMIN_2FA, an admin without an enabled second factor is held to the enrolment routes.
 */
export function authenticate(ctx: TokenContext, accounts: Authenticator): MiddlewareHandler<AppEnv> {
  return async function authenticateBearer(c, next) {
    const header = c.req.header('authorization');
    c.set('auth', undefined);
    c.set('user', undefined);
    c.set('accounts', accounts);
    if (RUNNER_ROUTES.test(apiPath(c.req.path))) return next();
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (!m) throw new HttpError('auth.malformed_header', 'Malformed Authorization header');
      const auth = await verifyAccessToken(ctx, m[1] as string);
      // A token of a revoked session (logout, "sign out other devices", password change) ends with it.
      if (!auth || (auth.sessionId && (await accounts.sessionEnded(auth.sessionId))))
        throw new HttpError('auth.session_expired', 'Your session has expired. Please log in again.');
      if (ctx.env.REQUIRE_ADMIN_2FA && (await accounts.adminLacksSecondFactor(auth.userId))) {
        if (!ALLOWED_BEFORE_ENROLMENT.test(apiPath(c.req.path)))
          throw new HttpError('auth.second_factor_enrolment_required', SECOND_FACTOR_ENROLMENT_REQUIRED);
        auth.enrolmentRequired = true;
      }
      c.set('auth', auth);
    }
    await next();
  };
}

export type CurrentUserRow = AccountStanding;

export const ACCOUNT_SUSPENDED = 'Your account has been suspended. Please contact support if you believe this is a mistake.';

/**
 * The signed-in account holder as the read model has them now, rejected members included (the
 * `describe` middleware's access check: `accountHolder` routes take them as they are, the others
 * through `approvedOrPending` and `adminOnly`). A suspended account is a 401 (its sessions were
 * ended), an erased one too.
 */
export async function holderStanding(accounts: Authenticator, auth: AuthInfo | undefined): Promise<CurrentUserRow> {
  if (!auth) throw new HttpError('auth.required', 'Please log in to continue');
  const user = await accounts.standing(auth.userId);
  if (!user) throw new HttpError('auth.account_gone', 'Your account no longer exists');
  if (user.status === 'suspended') throw new HttpError('auth.account_suspended', ACCOUNT_SUSPENDED);
  return user;
}

/** A rejected member is a 403 past their restricted session's routes. */
export function approvedOrPending(user: CurrentUserRow): CurrentUserRow {
  if (user.status === 'rejected') throw new HttpError('auth.not_approved', 'Your account registration was not approved');
  return user;
}

export function adminOnly(user: CurrentUserRow): CurrentUserRow {
  if (user.role !== 'admin') throw new HttpError('auth.admin_only', "You don't have permission to access this page.");
  return user;
}

/** An admin's staff role: the one recorded, else `owner` (the bootstrapped admin, an admin from before staff roles). */
export function staffRoleOf(user: Pick<CurrentUserRow, 'role' | 'staff_role'>): StaffRole | null {
  if (user.role !== 'admin') return null;
  return isStaffRole(user.staff_role) ? user.staff_role : 'owner';
}

/** An admin whose staff role grants `permission` (@members/ui/staffRoles); else 403 `auth.permission_required`, naming it. */
export function staffWith(permission: StaffPermission, user: CurrentUserRow): CurrentUserRow {
  const role = staffRoleOf(adminOnly(user));
  if (!role || !can(role, permission)) throw new HttpError('auth.permission_required', permissionRequired(permission));
  return user;
}

/**
 * The account a route's `access` admitted (the `describe` middleware of http/openapi.ts set it):
 * for `member`, `account`, `accountHolder` and `admin` routes. A route of another access reading it
 * is a programming error, not a refusal.
 */
export function userOf(c: { get(key: 'user'): CurrentUserRow | undefined }): CurrentUserRow {
  const user = c.get('user');
  if (!user) throw new Error('userOf: this route admits no account (its access is neither member, account, accountHolder nor admin)');
  return user;
}

/** Who runs a command and for which request: the `caller` every audited service takes. */
export function callerOf(c: Context<AppEnv, any, any>): { actorId: string; requestId: string } {
  return { actorId: userOf(c).id, requestId: c.get('requestId') };
}
