/**
 * Pure display helpers shared by the web app and the admin desktop. The rules have their own
 * modules: `@members/ui/access` (access decision, approval), `@members/ui/registration`,
 * `@members/ui/money` (BTC amounts).
 */
export { formatDate, formatUsd } from './dates';
export { formatDuration, parseDuration } from './duration';
export { errorText } from './errorText';
export {
  ACCESS_LEVEL_OPTIONS,
  accessLevelLabel,
  clampPage,
  featuredBadges,
  formatFileSize,
  NEW_BADGE_DAYS,
  pageCount,
  topQualityBadge,
  videoSpecs,
} from './library';
export { CHAT_REPLY_MAIL_LABEL } from './notifications';
export { isoToLocalInput, isScheduled, localInputToIso, scheduledText } from './release';
export { isAdmin, postLoginPath, REJECTED_MEMBER_PATH, type SessionUserLike } from './session';
export { type BadgeTone, type SubscriptionLike, subscriptionAction, subscriptionBadge } from './subscriptionBadge';
