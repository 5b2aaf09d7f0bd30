/**
 * Live shows' use cases (issue 43): schedule a show (its stream key made here, shown once, stored as
 * its SHA-256 only), rotate the key, end the show, start it when an encoder publishes the current key
 * (the ingest asks this, before anything of the stream is stored), record its replay as a library
 * video, and the spec §4 access decision over a show for a viewer (the same codes and messages as a
 * video's). No HTTP here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type AccessDecision, accessDecision, accessErrorCode, hasActiveSubscription } from '@members/ui/access';
import { maxRenditionHeight } from '@members/ui/entitlement';
import { subscriptionOf } from '../billing/index.js';
import { audienceOfStanding } from '../catalog/index.js';
import { aggregate } from '../eventstore/commandHandler.js';
import { findMemberStanding, type MemberStanding } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata, SYSTEM_CALLER } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { type AccessLevel, type EndReason, type LiveRenditionInfo, SHOW_NOT_FOUND, showDecider, showStream } from './show.decider.js';
import { findShow, findShowByKeyHash, type ShowRow } from './show.projection.js';

const shows = aggregate(showDecider, (showId: string) => showStream(showId));

/** The SHA-256 (hex) a stream key is stored and looked up as. */
export const keyHashOf = (streamKey: string) => createHash('sha256').update(streamKey, 'utf8').digest('hex');
/** A new stream key: 192 random bits, URL- and RTMP-safe. */
const newStreamKey = () => randomBytes(24).toString('base64url');

/** The RTMP server URL OBS's "Server" field takes (the key goes in "Stream Key"). */
export function ingestUrlOf(ctx: AppContext): string {
  if (ctx.env.LIVE_INGEST_URL) return ctx.env.LIVE_INGEST_URL;
  const host = ctx.env.PUBLIC_URL ? new URL(ctx.env.PUBLIC_URL).hostname : 'localhost';
  return `rtmp://${host}:${ctx.env.LIVE_RTMP_PORT || 1935}/live`;
}

export interface ScheduleInput {
  title: string;
  description?: string | undefined;
  accessLevel: AccessLevel;
  exclusiveTo?: 'annual' | null | undefined;
  startsAt: string;
  saveReplay: boolean;
}

export async function scheduleShow(
  ctx: AppContext,
  input: ScheduleInput,
  caller: Caller & { actorId: string },
): Promise<Result<{ show: ShowRow; streamKey: string }>> {
  const showId = ctx.ids.next();
  const streamKey = newStreamKey();
  const meta = eventMetadata(ctx, caller);
  const result = await shows(ctx.store).handle(
    showId,
    {
      type: 'ScheduleShow',
      showId,
      title: input.title,
      description: input.description ?? '',
      accessLevel: input.accessLevel,
      exclusiveTo: input.exclusiveTo ?? null,
      startsAt: new Date(input.startsAt).toISOString(),
      saveReplay: input.saveReplay,
      keyHash: keyHashOf(streamKey),
      scheduledBy: caller.actorId,
      now: meta.at,
    },
    meta,
  );
  if (!result.ok) return result;
  const show = await findShow(ctx.db, showId);
  if (!show) throw new Error(`the show ${showId} was scheduled but is not in the read model`);
  return success({ show, streamKey });
}

/** A new key for the show: the old one stops working at once (an encoder already live keeps its connection). */
export async function rotateShowKey(ctx: AppContext, showId: string, caller: Caller & { actorId: string }): Promise<Result<string>> {
  const streamKey = newStreamKey();
  const meta = eventMetadata(ctx, caller);
  const result = await shows(ctx.store).handle(
    showId,
    { type: 'RotateShowKey', showId, keyHash: keyHashOf(streamKey), rotatedBy: caller.actorId, now: meta.at },
    meta,
  );
  return result.ok ? success(streamKey) : result;
}

export async function endShow(ctx: AppContext, showId: string, reason: EndReason, caller: Caller): Promise<Result<ShowRow>> {
  const meta = eventMetadata(ctx, caller);
  const result = await shows(ctx.store).handle(showId, { type: 'EndShow', showId, reason, endedBy: caller.actorId, now: meta.at }, meta);
  if (!result.ok) return result;
  const show = await findShow(ctx.db, showId);
  return show ? success(show) : failure('live.show_not_found', SHOW_NOT_FOUND);
}

/**
 * The show a published stream key opens, if any: a scheduled show whose current key it is. The
 * ingest refuses the stream otherwise (a wrong, rotated-away or reused key) before storing anything.
 */
export async function showForStreamKey(ctx: AppContext, streamKey: string): Promise<ShowRow | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(streamKey)) return null;
  const show = await findShowByKeyHash(ctx.db, keyHashOf(streamKey));
  return show && show.status === 'scheduled' ? show : null;
}

/** The show goes live with this ladder, if the key is still its current key and it has not started or ended. */
export async function startShow(
  ctx: AppContext,
  showId: string,
  streamKey: string,
  renditions: LiveRenditionInfo[],
): Promise<Result<void>> {
  const meta = eventMetadata(ctx, { ...SYSTEM_CALLER, actor: 'live-ingest' });
  const result = await shows(ctx.store).handle(
    showId,
    { type: 'StartShow', showId, keyHash: keyHashOf(streamKey), renditions, now: meta.at },
    meta,
  );
  return result.ok ? success(undefined) : result;
}

export async function recordReplay(ctx: AppContext, showId: string, videoId: string): Promise<Result<void>> {
  const meta = eventMetadata(ctx, { ...SYSTEM_CALLER, actor: 'live-ingest' });
  const result = await shows(ctx.store).handle(showId, { type: 'RecordShowReplay', showId, videoId, now: meta.at }, meta);
  return result.ok ? success(undefined) : result;
}

/** An admin's cap: the tallest rendition there is. */
const ADMIN_MAX_HEIGHT = 4320;

/** The §4 decision over a show, for a viewer (or none) in a region: the same rule as a video's, with no release schedule. */
export async function decideShowAccess(
  ctx: AppContext,
  show: ShowRow,
  viewer: MemberStanding | undefined,
  regionBlocked: boolean,
): Promise<{ decision: AccessDecision; plan: 'monthly' | 'annual' | null }> {
  const audience = viewer ? await audienceOfStanding(ctx.db, viewer) : { admin: false, plan: null };
  const decision = accessDecision({
    video: { accessLevel: show.access_level, exclusiveTo: show.exclusive_to, publishAt: null, availableAt: null },
    geo: { blocked: regionBlocked },
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
    now: ctx.clock.now().getTime(),
  });
  return { decision, plan: audience.plan };
}

export interface ShowViewing {
  show: ShowRow;
  viewer: MemberStanding;
  /** The tallest rendition this viewer's plan plays (the VOD rule: site config `media`). */
  maxHeight: number;
}

/** The show and its viewer when the §4 decision allows, or its refusal with the videos' code and message. */
export async function authorizeShowViewing(
  ctx: AppContext,
  request: { showId: string; userId: string | undefined; regionBlocked: boolean },
): Promise<Result<ShowViewing>> {
  const show = await findShow(ctx.db, request.showId);
  if (!show) return failure('live.show_not_found', SHOW_NOT_FOUND);
  const viewer = request.userId ? await findMemberStanding(ctx.db, request.userId) : undefined;
  const { decision } = await decideShowAccess(ctx, show, viewer, request.regionBlocked);
  if (!decision.allowed) return failure(accessErrorCode(decision.reason), decision.message ?? 'Access denied');
  if (!viewer) return failure('access.not_logged_in', 'Please log in to view videos');
  return success({ show, viewer, maxHeight: await showEntitlement(ctx, show, viewer) });
}

/** The tallest rendition of the show this (allowed) viewer may watch: their plan's cap, as for a video. */
export async function showEntitlement(ctx: AppContext, show: ShowRow, viewer: MemberStanding): Promise<number> {
  if (viewer.role === 'admin') return ADMIN_MAX_HEIGHT;
  const subscribed = hasActiveSubscription({ membershipStatus: viewer.membership_status, subscriptionStatus: viewer.subscription_status });
  const plan = subscribed ? ((await subscriptionOf(ctx.db, viewer.id))?.plan_type ?? 'monthly') : null;
  return maxRenditionHeight(
    { accessLevel: show.access_level, plan: plan === 'annual' ? 'annual' : plan ? 'monthly' : null },
    ctx.site.media,
  );
}
