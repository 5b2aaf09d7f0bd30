/** Pure display and validation helpers shared by the web app and the admin desktop. */
export { explorerTxUrl, formatBtc, satsToBtc, truncateHash } from './btc';
export { formatDate, formatUsd } from './dates';
export { formatDuration, parseDuration } from './duration';
export { ACCESS_LEVEL_OPTIONS, accessLevelLabel, clampPage, formatFileSize, pageCount, videoSpecs } from './library';
export {
  ageOn,
  MIN_AGE,
  MIN_PASSWORD_LENGTH,
  maxBirthDate,
  type RegistrationForm,
  validateLogin,
  validateRegistration,
} from './registration';
export { hasActiveSubscription, isAdmin, isApproved, postLoginPath, type SessionUserLike } from './session';
export { type BadgeTone, type SubscriptionLike, subscriptionAction, subscriptionBadge } from './subscriptionBadge';
