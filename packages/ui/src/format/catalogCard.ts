/**
 * What a catalog card says of a video to this viewer (issue 40): a behind-the-scenes video locked
 * with an "Annual plan" badge for anyone not on the annual plan, a scheduled one "Coming to your
 * plan on {date}" until their audience's day, otherwise its access level and top quality. The
 * server has the last word (the §4 decision on the stream); this only explains it on the card.
 */
import { ACCESS_MESSAGES, formatReleaseDate } from '../access/accessDecision';
import type { MediaCaps } from '../access/entitlement';
import { topQualityBadge } from './library';

/** The badge of a video exclusive to the annual plan, shown to viewers on another plan or none. */
export const ANNUAL_PLAN_BADGE = 'Annual plan';
/** Where the locked card sends the viewer: the subscription page with the annual plan chosen. */
export const ANNUAL_UPGRADE_PATH = '/subscription?plan=annual';

export interface CatalogCardVideo {
  accessLevel: string;
  qualities?: string[] | null;
  exclusiveTo?: string | null;
  availableAt?: string | null;
}

export interface CatalogViewer {
  /** Admins preview everything: never locked. */
  admin?: boolean;
  /** The plan of the viewer's active subscription ('monthly' | 'annual'), null without one. */
  plan?: string | null;
  /** The plan the viewer's streams are capped by (monthly for a granted subscription without a plan); default: `plan`. */
  entitledPlan?: string | null;
  /** The site's quality caps: given, the quality badge is this viewer's (topQualityBadge marks one their plan does not play). */
  media?: MediaCaps;
}

export interface CatalogCardState {
  badges: string[];
  /** 'annual_plan': only the annual plan watches it; 'coming': the viewer's day has not come. */
  lock: 'annual_plan' | 'coming' | null;
  /** The line under the title: "Coming to your plan on {date}". */
  note: string | null;
}

/**
 * @example catalogCardState({ accessLevel: 'premium', exclusiveTo: 'annual' }, { plan: 'monthly' }) // { badges: ['Annual plan'], lock: 'annual_plan', note: null }
 */
export function catalogCardState(video: CatalogCardVideo, viewer: CatalogViewer, now: Date | number = Date.now()): CatalogCardState {
  const capped = viewer.entitledPlan ?? viewer.plan;
  const plan = capped === 'annual' || capped === 'monthly' ? capped : null;
  const quality =
    viewer.media && !viewer.admin
      ? topQualityBadge(video.qualities ?? [], video, { plan, media: viewer.media })
      : topQualityBadge(video.qualities ?? []);
  const plain = [String(video.accessLevel).toUpperCase(), quality].filter((b): b is string => Boolean(b));
  if (viewer.admin) return { badges: plain, lock: null, note: null };
  if (video.exclusiveTo === 'annual' && viewer.plan !== 'annual') return { badges: [ANNUAL_PLAN_BADGE], lock: 'annual_plan', note: null };
  if (video.availableAt && Date.parse(video.availableAt) > +now)
    return {
      badges: plain,
      lock: 'coming',
      note: ACCESS_MESSAGES.not_yet_available.replace('{date}', formatReleaseDate(video.availableAt)),
    };
  return { badges: plain, lock: null, note: null };
}
