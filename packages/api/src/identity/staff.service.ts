/**
 * The creator's team (issue 42): the owner invites staff by e-mail with a role (a single-use link
 * valid 72 hours, mailed by the identity mail subscriber within the mail limits), the invitee
 * accepts with a password and a display name, the owner lists the staff, changes a role, removes a
 * member of the staff (every session of theirs ends at once). The rules are the user decider's
 * (user.decider.ts); the role → permission matrix is @members/ui/staffRoles.
 */
import type { staffInvitationSchema, staffMemberSchema } from '@members/ui/api/schemas';
import type { StaffRole } from '@members/ui/staffRoles';
import type { z } from 'zod';
import { UniqueViolation } from '../db/types.js';
import { tokenSecret } from '../http/auth.js';
import type { AppContext } from '../kernel/context.js';
import type { Caller } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { runUserCommand } from './accounts.service.js';
import { hashPassword } from './passwords.js';
import { revokeUserSessions } from './sessions.js';
import { sha256, staffInvitationToken } from './tokens.js';
import { findStaffInvitation, findUserByEmail, openStaffInvitations, staffMember, staffMembers } from './users.queries.js';

type StaffMember = z.infer<typeof staffMemberSchema>;
type StaffInvitation = z.infer<typeof staffInvitationSchema>;

export const STAFF_INVITATION_TTL_MS = 72 * 60 * 60 * 1000;
export const STAFF_JOINED = 'Your staff account is ready. You can now log in.';
const STAFF_NOT_FOUND = 'Staff member not found';

/** Invites `email` with `role`; a newer invitation to the same address replaces the open one (only its link works). */
export async function inviteStaff(
  ctx: AppContext,
  input: { email: string; role: StaffRole },
  caller: Caller & { actorId: string },
): Promise<Result<{ invitation: StaffInvitation }>> {
  if (await findUserByEmail(ctx.db, input.email)) return failure('user.exists', 'An account with this email already exists');
  const open = (await openStaffInvitations(ctx.db, new Date(0))).find((i) => i.email.toLowerCase() === input.email.toLowerCase());
  const userId = open?.user_id ?? ctx.ids.next();
  const invitationId = ctx.ids.next();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + STAFF_INVITATION_TTL_MS).toISOString();
  const ran = await runUserCommand(
    ctx,
    userId,
    {
      type: 'InviteStaff',
      userId,
      invitationId,
      email: input.email,
      staffRole: input.role,
      tokenHash: sha256(staffInvitationToken(tokenSecret(ctx), invitationId)),
      expiresAt,
      invitedBy: caller.actorId,
      now: now.toISOString(),
    },
    caller,
  );
  if (!ran.ok) return ran;
  return success({ invitation: { id: userId, email: input.email, role: input.role, invitedAt: now.toISOString(), expiresAt } });
}

/** Follows an invitation link: the staff account exists from here (an approved admin with the invited role). */
export async function acceptStaffInvitation(
  ctx: AppContext,
  input: { token: string; password: string; displayName: string },
  caller: Omit<Caller, 'actorId'>,
): Promise<Result<{ message: string }>> {
  const tokenHash = sha256(input.token);
  const invitation = await findStaffInvitation(ctx.db, tokenHash);
  if (!invitation) return failure('auth.invalid_link', 'This invitation link is invalid or has already been used');
  const command = {
    type: 'AcceptStaffInvitation',
    tokenHash,
    displayName: input.displayName,
    passwordHash: await hashPassword(input.password),
    now: ctx.clock.now().toISOString(),
  } as const;
  try {
    const ran = await runUserCommand(ctx, invitation.user_id, command, { ...caller, actorId: invitation.user_id });
    if (!ran.ok) return ran;
  } catch (err) {
    // The address got an account since the invitation: the read model's unique index rolled the append back.
    if (!(err instanceof UniqueViolation)) throw err;
    return failure('user.exists', 'An account with this email already exists');
  }
  return success({ message: STAFF_JOINED });
}

/** The staff (every admin account not removed, owners included) and the invitations still open. */
export async function listStaff(ctx: AppContext): Promise<{ staff: StaffMember[]; invitations: StaffInvitation[] }> {
  const invitations = await openStaffInvitations(ctx.db, ctx.clock.now());
  return {
    staff: await staffMembers(ctx.db),
    invitations: invitations.map((i) => ({
      id: i.user_id,
      email: i.email,
      role: i.staff_role as StaffRole,
      invitedAt: i.invited_at,
      expiresAt: i.expires_at,
    })),
  };
}

export async function changeStaffRole(
  ctx: AppContext,
  id: string,
  role: StaffRole,
  caller: Caller & { actorId: string },
): Promise<Result<{ staff: StaffMember }>> {
  const ran = await runUserCommand(ctx, id, { type: 'ChangeStaffRole', staffRole: role, changedBy: caller.actorId, now: now(ctx) }, caller);
  if (!ran.ok) return ran.error.code === 'user.not_found' ? failure('user.not_found', STAFF_NOT_FOUND) : ran;
  const member = await staffMember(ctx.db, id);
  return member ? success({ staff: member }) : failure('user.not_found', STAFF_NOT_FOUND);
}

/** Removes a staff member: their account stops at once (its tokens are refused: the read model no longer has it) and every session ends. */
export async function removeStaff(
  ctx: AppContext,
  id: string,
  caller: Caller & { actorId: string },
): Promise<Result<{ removed: true; sessionsEnded: number }>> {
  const ran = await runUserCommand(ctx, id, { type: 'RemoveStaff', removedBy: caller.actorId, now: now(ctx) }, caller);
  if (!ran.ok) return ran.error.code === 'user.not_found' ? failure('user.not_found', STAFF_NOT_FOUND) : ran;
  const sessionsEnded = await revokeUserSessions(ctx.db, id, ctx.clock.now());
  return success({ removed: true, sessionsEnded });
}

const now = (ctx: AppContext) => ctx.clock.now().toISOString();
