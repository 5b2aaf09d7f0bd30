/**
 * Streaming's use cases: may this viewer watch this video (the shared `accessDecision` over the
 * published video, the viewer's region and the viewer as identity's read model has them now), and
 * count a view under the same decision. The caller gives the region check's answer, so nothing
 * here needs HTTP. The video and the viewer are read through the owning areas' queries modules.
 */
import { type AccessDecision, accessDecision, accessErrorCode, hasActiveSubscription } from '@members/ui/access';
import { permissionRequired } from '@members/ui/staffRoles';
import { subscriptionOf } from '../billing/index.js';
import { audienceOfStanding, availableAtOf, findVideo, previewRefused, type VideoRow, viewCountOf } from '../catalog/index.js';
import { aggregate } from '../eventstore/commandHandler.js';
import { findMemberStanding, type MemberStanding } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { maxRenditionHeight } from './entitlement.js';
import { viewingDecider, viewsStreamId } from './viewing.decider.js';
import { watchTimeDecider, watchTimeStreamId } from './watchTime.decider.js';

/** An admin's cap: the tallest rendition there is (the site's heights stop at 4320). */
const ADMIN_MAX_HEIGHT = 4320;

const views = aggregate(viewingDecider, (v: { videoId: string; userId: string }) => viewsStreamId(v.videoId, v.userId));
const watchTime = aggregate(watchTimeDecider, (v: { videoId: string; userId: string }) => watchTimeStreamId(v.videoId, v.userId));

export type Viewer = MemberStanding;

/** Who asks to watch what, from where. */
export interface ViewingRequest {
  videoId: string;
  /** The signed-in user, if any. */
  userId: string | undefined;
  /** Whether the viewer's region is blocked (geo/geoCheck.ts). */
  regionBlocked: boolean;
}

export interface AccessCheck {
  decision: AccessDecision;
  video: VideoRow | undefined;
  viewer: Viewer | undefined;
}

export async function checkVideoAccess(ctx: AppContext, request: ViewingRequest): Promise<AccessCheck> {
  const video = await findVideo(ctx.db, request.videoId, { viewerId: request.userId });
  const viewer = request.userId ? await findMemberStanding(ctx.db, request.userId) : undefined;
  // The plan is read only when the video's schedule or exclusivity needs it (the stream's hot path).
  const planMatters = !!video && (video.publish_at !== null || video.exclusive_to !== null);
  const audience = !viewer
    ? { admin: false, plan: null }
    : planMatters
      ? await audienceOfStanding(ctx.db, viewer)
      : { admin: viewer.role === 'admin', plan: null };
  const now = ctx.clock.now().getTime();
  const decision = accessDecision({
    video: video
      ? {
          accessLevel: video.access_level,
          exclusiveTo: video.exclusive_to,
          publishAt: video.publish_at,
          availableAt: availableAtOf(video, audience, ctx.site.releases, now),
        }
      : null,
    geo: { blocked: request.regionBlocked },
    user: viewer
      ? {
          approved: Number(viewer.approved),
          status: viewer.status,
          membershipStatus: viewer.membership_status,
          subscriptionStatus: viewer.subscription_status,
          role: viewer.role,
          plan: audience.plan,
        }
      : null,
    now,
  });
  return { decision, video, viewer };
}

/** The allowed video and viewer, or the decision's refusal with its code and message. */
export async function authorizeViewing(ctx: AppContext, request: ViewingRequest): Promise<Result<{ video: VideoRow; viewer: Viewer }>> {
  const { decision, video, viewer } = await checkVideoAccess(ctx, request);
  if (!decision.allowed) return failure(accessErrorCode(decision.reason), decision.message ?? 'Access denied');
  // An allowed decision had both (the narrowing is for the compiler).
  if (!video) return failure('video.not_found', 'Video not found');
  if (!viewer) return failure('access.not_logged_in', 'Please log in to view videos');
  // An admin passed the decision on a video not out yet: a preview, the `videos` permission's (issue 42).
  if (await previewRefused(ctx.db, video, viewer.id)) return failure('auth.permission_required', permissionRequired('videos'));
  return success({ video, viewer });
}

/**
 * Counts a view (more than 5 s, once per viewer and video per 30 minutes) and answers the video's count.
 * An admin's preview (`preview`) is not a member's view: nothing is recorded, the creator's numbers stay the members'.
 */
export async function recordView(
  ctx: AppContext,
  view: { videoId: string; viewerId: string; watchedSeconds: number; preview?: boolean },
  caller: Caller,
): Promise<Result<{ counted: boolean; viewCount: number }>> {
  if (view.preview) return success({ counted: false, viewCount: await viewCountOf(ctx.db, view.videoId) });
  const meta = eventMetadata(ctx, caller);
  const result = await views(ctx.store).handle(
    { videoId: view.videoId, userId: view.viewerId },
    { type: 'RecordView', data: { videoId: view.videoId, userId: view.viewerId, watchedSeconds: view.watchedSeconds, at: meta.at } },
    meta,
  );
  if (!result.ok) return result;
  return success({ counted: result.events.length > 0, viewCount: await viewCountOf(ctx.db, view.videoId) });
}

/**
 * Records the seconds a player reports (bounded by the time since the viewer's previous report) and answers what was credited.
 * An admin's preview (`preview`) records nothing, as for the view.
 */
export async function recordWatchTime(
  ctx: AppContext,
  report: { videoId: string; viewerId: string; seconds: number; preview?: boolean },
  caller: Caller,
): Promise<Result<{ recordedSeconds: number }>> {
  if (report.preview) return success({ recordedSeconds: 0 });
  const meta = eventMetadata(ctx, caller);
  const result = await watchTime(ctx.store).handle(
    { videoId: report.videoId, userId: report.viewerId },
    { type: 'RecordWatchTime', data: { videoId: report.videoId, userId: report.viewerId, seconds: report.seconds, at: meta.at } },
    meta,
  );
  if (!result.ok) return result;
  return success({ recordedSeconds: result.events.reduce((s, e) => s + e.data.seconds, 0) });
}

/**
 * The tallest HLS rendition this (allowed) viewer may watch of this video: their plan's height from
 * the site config (an active subscription without a billing row, as an admin may grant, counts as
 * the monthly plan), or the free height for a member without one. An admin previews the full ladder.
 */
export async function renditionEntitlement(ctx: AppContext, video: VideoRow, viewer: Viewer): Promise<number> {
  if (viewer.role === 'admin') return ADMIN_MAX_HEIGHT;
  const subscribed = hasActiveSubscription({ membershipStatus: viewer.membership_status, subscriptionStatus: viewer.subscription_status });
  const plan = subscribed ? ((await subscriptionOf(ctx.db, viewer.id))?.plan_type ?? 'monthly') : null;
  return maxRenditionHeight({ accessLevel: video.access_level, plan }, ctx.site.media);
}
