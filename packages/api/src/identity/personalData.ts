/**
 * Identity's part of a member's data rights (AppModule.exportPersonalData, erasePersonalData; the
 * privacy module runs them). The export: the profile, the account's history (its own events, secrets
 * left out), the second factor and the sessions. The erasure, after `MemberErased` blanked the
 * read model: the sessions and their tokens, the second factor's secret, passkey ceremonies under way
 * (the passkeys' read model drops them at `MemberErased`; their names and keys were sealed in the log)
 * and the failed-login counters kept under their addresses (keyed by an HMAC of each, limits.ts).
 */
import type { AppContext } from '../kernel/context.js';
import type { ErasedMember, MemberExport } from '../kernel/module.js';
import { authLimitsOf } from './limits.js';
import { deleteChallengesOf } from './passkeys.js';
import { deleteSecret, findSecondFactor } from './secondFactors.js';
import { deleteSessionsOf, sessionsOf } from './sessions.js';
import { announceSessionsEnded } from './sessionsEnded.js';
import { userStream } from './user.decider.js';
import { findUserById, geoLocationOf } from './users.queries.js';

/** Not information about the person, and a leaked export must not become a way in. */
const SECRET_FIELD = /^(passwordHash|tokenHash|codeHash|recoveryCodeHashes)$/;

const withoutSecrets = (data: Record<string, unknown>) => Object.fromEntries(Object.entries(data).filter(([k]) => !SECRET_FIELD.test(k)));

export async function exportIdentityData(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return {};
  const own = await ctx.store.readStream(userStream(userId));
  const factor = await findSecondFactor(ctx.db, userId);
  const sessions = await sessionsOf(ctx.db, userId);
  return {
    member: {
      id: user.id,
      email: user.email,
      firstName: user.first_name,
      lastName: user.last_name,
      dateOfBirth: user.date_of_birth,
      role: user.role,
      status: user.status,
      emailVerified: Number(user.email_verified) === 1,
      registeredAt: user.created_at,
      approvedAt: user.approved_at,
      rejectedAt: user.rejected_at,
      locationAtRegistration: geoLocationOf(user),
      membershipStatus: user.membership_status,
      subscriptionStatus: user.subscription_status,
    },
    accountHistory: own.map((e) => ({
      at: e.metadata.at ?? e.recordedAt,
      event: e.type,
      details: withoutSecrets(e.data as Record<string, unknown>),
    })),
    secondFactor: {
      enabled: factor?.status === 'enabled',
      enrolledAt: factor?.enrolled_at ?? null,
      recoveryCodesLeft: factor?.status === 'enabled' ? Number(factor.recovery_codes_left) : 0,
    },
    sessions: sessions.map((s) => ({ id: s.id, createdAt: s.created_at, revokedAt: s.revoked_at })),
  };
}

export async function eraseIdentityData(ctx: AppContext, member: ErasedMember): Promise<undefined> {
  await deleteSessionsOf(ctx.db, member.userId);
  await announceSessionsEnded(ctx, member.userId);
  await deleteSecret(ctx.db, member.userId);
  await deleteChallengesOf(ctx.db, member.userId);
  const limits = authLimitsOf(ctx);
  for (const a of member.addresses) await limits.failedLogins.reset(a);
  return undefined;
}
