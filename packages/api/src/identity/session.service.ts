/** Issues the access token and refresh session a successful login or refresh answers with. */
import type { Context } from 'hono';
import type { AppContext } from '../context.js';
import { signAccessToken } from '../http/auth.js';
import { setSessionCookies } from './cookies.js';
import { createSession, type IssuedToken } from './sessions.js';
import { toUserDto, type UserDto } from './users.queries.js';
import type { UserRow } from './users.schema.js';

export interface SessionAnswer {
  token: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  user: UserDto;
}

export function refreshTtlMs(ctx: AppContext): number {
  return ctx.env.REFRESH_TOKEN_TTL_DAYS * 24 * 60 * 60 * 1000;
}

/** Signs an access token and sets the cookies for a (new or rotated) refresh token. */
export async function answerWithSession(ctx: AppContext, c: Context, user: UserRow, refresh?: IssuedToken): Promise<SessionAnswer> {
  const issued = refresh ?? (await createSession(ctx.db, user.id, ctx.ids.next(), ctx.clock.now(), refreshTtlMs(ctx)));
  setSessionCookies(ctx, c, issued);
  const token = await signAccessToken(ctx, { id: user.id, role: user.role });
  return { token, expiresIn: ctx.env.ACCESS_TOKEN_TTL_SECONDS, user: toUserDto(user) };
}
