/**
 * The token that carries a login from its password step to its second-factor step: an HS256 JWT of
 * type `mfa` (so it never passes as an access token), five minutes on the injected clock, bound to
 * the user, to this login attempt (`jti`) and to the password the attempt proved (a fingerprint of
 * its hash: a password change in between voids it).
 */
import { sign, verify } from 'hono/jwt';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';
import { sha256 } from './tokens.js';

export const MFA_TOKEN_TTL_SECONDS = 5 * 60;

interface MfaClaims {
  sub: string;
  typ: 'mfa';
  jti: string;
  pwd: string;
  iat: number;
  exp: number;
}

const passwordFingerprint = (passwordHash: string) => sha256(`mfa-token:${passwordHash}`).slice(0, 24);

export async function signMfaToken(ctx: AppContext, user: { id: string; password_hash: string }): Promise<string> {
  const iat = Math.floor(ctx.clock.now().getTime() / 1000);
  const claims: MfaClaims = {
    sub: user.id,
    typ: 'mfa',
    jti: ctx.ids.next(),
    pwd: passwordFingerprint(user.password_hash),
    iat,
    exp: iat + MFA_TOKEN_TTL_SECONDS,
  };
  return sign({ ...claims }, tokenSecret(ctx), 'HS256');
}

/** The user id and attempt a valid, unexpired token names, or undefined. Check `pwd` with `mfaTokenMatchesPassword`. */
export async function readMfaToken(
  ctx: AppContext,
  token: string,
): Promise<{ userId: string; attemptId: string; pwd: string } | undefined> {
  try {
    const claims = (await verify(token, tokenSecret(ctx), { alg: 'HS256', exp: false, iat: false })) as unknown as MfaClaims;
    if (claims.typ !== 'mfa' || typeof claims.sub !== 'string' || typeof claims.pwd !== 'string') return undefined;
    if (claims.exp * 1000 <= ctx.clock.now().getTime()) return undefined;
    return { userId: claims.sub, attemptId: String(claims.jti), pwd: claims.pwd };
  } catch {
    return undefined;
  }
}

export const mfaTokenMatchesPassword = (pwd: string, passwordHash: string) => pwd === passwordFingerprint(passwordHash);
