/**
 * Gathers what the shared access decision needs for one request — the published video, the
 * caller's region (checked here, server-side, so the client cannot skip it) and the caller as the
 * users read model has them now — and asks `accessDecision`.
 */
import { type AccessDecision, accessDecision, accessHttpStatus } from '@members/ui/access';
import type { Context } from 'hono';
import type { VideoRow } from '../catalog/catalog.projection.js';
import { findVideo } from '../catalog/catalog.queries.js';
import type { AppContext } from '../context.js';
import { geoCheckFor } from '../geo/geoCheck.js';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError } from '../http/envelope.js';

export interface ViewerRow {
  id: string;
  email: string;
  role: string;
  status: string;
  approved: number;
  membership_status: string | null;
  subscription_status: string | null;
}

export interface AccessCheck {
  decision: AccessDecision;
  video: VideoRow | undefined;
  viewer: ViewerRow | undefined;
}

export async function checkVideoAccess(ctx: AppContext, c: Context<AppEnv>, videoId: string): Promise<AccessCheck> {
  const video = await findVideo(ctx.db, videoId);
  const auth = c.get('auth');
  const viewer = auth
    ? await ctx.db.get<ViewerRow>(
        'SELECT id, email, role, status, approved, membership_status, subscription_status FROM users WHERE id = ?',
        [auth.userId],
      )
    : undefined;
  const decision = accessDecision({
    video: video ? { accessLevel: video.access_level } : null,
    geo: { blocked: geoCheckFor(c, ctx).blocked },
    user: viewer
      ? {
          approved: Number(viewer.approved),
          status: viewer.status,
          membershipStatus: viewer.membership_status,
          subscriptionStatus: viewer.subscription_status,
        }
      : null,
  });
  return { decision, video, viewer };
}

/** The allowed video and viewer, or the decision's refusal as 401/403/404 with its message. */
export async function requireVideoAccess(
  ctx: AppContext,
  c: Context<AppEnv>,
  videoId: string,
): Promise<{ video: VideoRow; viewer: ViewerRow }> {
  const { decision, video, viewer } = await checkVideoAccess(ctx, c, videoId);
  if (!decision.allowed || !video || !viewer) {
    const status = accessHttpStatus(decision);
    throw new HttpError(status === 200 ? 403 : status, decision.message ?? 'Access denied');
  }
  return { video, viewer };
}
