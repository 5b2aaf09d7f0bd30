/**
 * The identity module: user accounts as events on `user-{id}` streams (user.decider.ts), the
 * `users` read model, registration, login with refresh sessions, password reset, e-mail
 * verification, profile, the admin bootstrap and the identity e-mails.
 * Use cases: accounts.service.ts (register, approve, reject, profile, verify e-mail),
 * session.service.ts (log in, refresh, log out), password.service.ts (reset request and confirm),
 * mfa.service.ts (the TOTP second factor: enrol, confirm, verify at login, remove),
 * settings.service.ts (change password or e-mail, list and revoke sessions), staff.service.ts (the
 * creator's team: invitations, roles, removal) and staffReads.ts (the staff's reads, audited).
 */
import type { AppModule } from '../kernel/module.js';
import { authRoutes } from './auth.routes.js';
import { bootstrapAdmin } from './bootstrap.js';
import { identityMailSubscriber } from './mail.subscriber.js';
import { mfaRoutes } from './mfa.routes.js';
import { passkeysProjection } from './passkeys.js';
import { passkeyRoutes } from './passkeys.routes.js';
import { passwordRoutes } from './password.routes.js';
import { eraseIdentityData, exportIdentityData } from './personalData.js';
import { secondFactorsProjection } from './secondFactors.js';
import { settingsRoutes } from './settings.routes.js';
import { staffRoutes } from './staff.routes.js';
import { staffReadsProjection } from './staffReads.js';
import { usersProjection } from './users.projection.js';
import { userRoutes } from './users.routes.js';

export { approveUser, rejectUser, runUserCommand } from './accounts.service.js';
export { accountsAuthenticator } from './authenticator.js';
export { configuredAdminEmail, isAdminEmail } from './bootstrap.js';
export { clearSessionCookies } from './cookies.js';
export { type AuthLimits, authLimitsOf, limitPerIp, loginBlocked } from './limits.js';
export { type MailKind, mailLimitsFor } from './mailLimits.js';
export { checkSecondFactor, resetSecondFactor } from './mfa.service.js';
export { verifyPassword } from './passwords.js';
export { LIMITS } from './registration.js';
export { deleteSecret, findSecondFactor } from './secondFactors.js';
export { sessionLifetimes } from './session.service.js';
export { sessionEnded } from './sessions.js';
export { onSessionsEnded, SESSIONS_ENDED_CHANNEL } from './sessionsEnded.js';
export { recordStaffRead } from './staffReads.js';
export { reinstateUser, suspendUser } from './suspension.service.js';
export { userStream } from './user.decider.js';
export { setMembership } from './users.projection.js';
export type { UserDto } from './users.queries.js';
export {
  erasedUserIds,
  findMemberStanding,
  findUserByEmail,
  findUserById,
  geoLocationOf,
  identityCounts,
  type MemberStanding,
  pendingUsers,
  searchUsers,
  usersAfter,
  usersByIds,
} from './users.queries.js';

export const identityModule: AppModule = {
  name: 'identity',
  projections: [usersProjection, secondFactorsProjection, staffReadsProjection, passkeysProjection],
  subscribers: (ctx) => [identityMailSubscriber(ctx)],
  exportPersonalData: exportIdentityData,
  erasePersonalData: eraseIdentityData,
  routes(api, ctx) {
    authRoutes(api, ctx);
    passwordRoutes(api, ctx);
    mfaRoutes(api, ctx);
    passkeyRoutes(api, ctx);
    userRoutes(api, ctx);
    settingsRoutes(api, ctx);
    staffRoutes(api, ctx);
  },
  async start(ctx) {
    await bootstrapAdmin(ctx);
    return undefined;
  },
};
