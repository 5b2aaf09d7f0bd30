/**
 * Scheduled releases, read side (issue 40): who the viewer is as an audience (admin, or their plan),
 * when that audience may watch a video (`availableAt`: its `publish_at` + the audience's delay from the
 * site config's `releases`), and the videos whose release time has come (the release job's list).
 */
import { audienceDelayDays, availableAtFor, hasActiveSubscription } from '@members/ui/access';
import { subscriptionOf } from '../billing/index.js';
import type { SiteConfig } from '../config/site.js';
import type { Queryable } from '../db/types.js';
import { findMemberStanding, type MemberStanding } from '../identity/index.js';
import type { VideoRow } from './catalog.projection.js';

/** A viewer as scheduled releases see them: admins preview everything; everyone else is their plan's audience. */
export interface Audience {
  admin: boolean;
  /** The active subscription's plan (one without a billing row, as an admin may grant, counts as monthly); null without one. */
  plan: 'monthly' | 'annual' | null;
}

export const VISITOR: Audience = { admin: false, plan: null };

/** The viewer's audience, read from identity's and billing's read models now. */
export async function audienceOf(db: Queryable, userId: string | null | undefined): Promise<Audience> {
  const standing = userId ? await findMemberStanding(db, userId) : undefined;
  return standing ? audienceOfStanding(db, standing) : VISITOR;
}

/** The audience of an account whose standing the caller has read already (one query fewer on the stream's path). */
export async function audienceOfStanding(db: Queryable, standing: MemberStanding): Promise<Audience> {
  const admin = standing.role === 'admin';
  const subscribed = hasActiveSubscription({
    membershipStatus: standing.membership_status,
    subscriptionStatus: standing.subscription_status,
  });
  if (!subscribed) return { admin, plan: null };
  const plan = (await subscriptionOf(db, standing.id))?.plan_type;
  return { admin, plan: plan === 'annual' ? 'annual' : 'monthly' };
}

/**
 * When this audience may watch the video (ISO 8601), null when it may now or the video has no schedule.
 * Admins are never kept waiting.
 * @example availableAtOf(row, { admin: false, plan: 'monthly' }, site.releases) // '2026-12-03T09:00:00.000Z'
 */
export function availableAtOf(
  row: Pick<VideoRow, 'publish_at' | 'access_level'>,
  audience: Audience,
  releases: SiteConfig['releases'],
  now: number = Date.now(),
): string | null {
  if (audience.admin || !row.publish_at) return null;
  return availableAtFor(row.publish_at, audienceDelayDays({ plan: audience.plan, accessLevel: row.access_level }, releases), now);
}

/** The ids of the unpublished videos whose release time has come (`now` or before), oldest schedule first. */
export async function dueReleases(db: Queryable, now: number = Date.now()): Promise<string[]> {
  // Few rows (scheduled and not yet out); the times are compared as instants, not as text.
  const rows = await db.all<{ id: string; publish_at: string }>(
    'SELECT id, publish_at FROM videos WHERE published = 0 AND publish_at IS NOT NULL',
  );
  return rows
    .map((r) => ({ id: r.id, at: Date.parse(r.publish_at) }))
    .filter((r) => r.at <= now)
    .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id))
    .map((r) => r.id);
}
