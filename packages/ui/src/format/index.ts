/**
 * Pure display helpers shared by the web app and the admin desktop. The rules have their own
 * modules: `@members/ui/access` (access decision, approval), `@members/ui/entitlement` (qualities per
 * plan), `@members/ui/registration`,
 * `@members/ui/money` (BTC amounts).
 */

export {
  ANNUAL_PLAN_BADGE,
  ANNUAL_UPGRADE_PATH,
  type CatalogCardState,
  type CatalogCardVideo,
  type CatalogViewer,
  catalogCardState,
} from './catalogCard';
export { formatDate, formatUsd } from './dates';
export { formatDuration, parseDuration } from './duration';
export { errorText } from './errorText';
export {
  ACCESS_LEVEL_OPTIONS,
  accessLevelLabel,
  type BadgeViewer,
  clampPage,
  featuredBadges,
  formatFileSize,
  NEW_BADGE_DAYS,
  pageCount,
  topQualityBadge,
  videoSpecs,
} from './library';
export { CHAT_REPLY_MAIL_LABEL } from './notifications';
export { isoToLocalInput, isScheduled, localInputToIso, msUntilNextRelease, RELEASE_RECHECK_MAX_MS, scheduledText } from './release';
export { isAdmin, postLoginPath, REJECTED_MEMBER_PATH, type SessionUserLike } from './session';
export { type BadgeTone, type SubscriptionLike, subscriptionAction, subscriptionBadge } from './subscriptionBadge';
