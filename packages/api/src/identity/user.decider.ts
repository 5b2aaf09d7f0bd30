/**
 * The user account aggregate (stream `user-{userId}`): registration, manual approval, password
 * changes and resets, e-mail verification, e-mail address changes (confirmed from the new
 * mailbox), profile edits, an admin's suspension and reinstatement of an approved member, and the
 * admin bootstrap; the creator's team (issue 42): an owner invites a staff member by e-mail with a
 * role, the invitee accepts with a password and a display name (the stream's account starts there),
 * the owner changes the role or removes them. Pure: hashes,
 * tokens' hashes, ids and time arrive inside the commands.
 */
import type { StaffRole } from '@members/ui/staffRoles';
import { accept, type Decider, reject } from '../shared/decider.js';

export type Role = 'member' | 'admin';
export type UserStatus = 'pending' | 'approved' | 'rejected' | 'suspended';

export const userStream = (userId: string) => `user-${userId}`;

// ── Events ──────────────────────────────────────────────────────────────────────────────────────
export type UserRegistered = {
  type: 'UserRegistered';
  data: {
    userId: string;
    email: string;
    firstName: string;
    lastName: string;
    dateOfBirth: string;
    passwordHash: string;
    role: Role;
    registeredAt: string;
    geoCountry?: string | null;
    geoRegion?: string | null;
  };
};
export type UserApproved = { type: 'UserApproved'; data: { userId: string; approvedBy: string; approvedAt: string } };
export type UserRejected = {
  type: 'UserRejected';
  data: { userId: string; rejectedBy: string; rejectedAt: string; reason?: string | null };
};
/**
 * An admin suspended an approved member: they cannot sign in, their sessions end, and the access
 * decision treats them as not approved until they are reinstated. `reason` is the admin's record.
 */
export type UserSuspended = { type: 'UserSuspended'; data: { userId: string; reason: string; suspendedBy: string; suspendedAt: string } };
/** An admin lifted a suspension: the member is approved again (their subscription was never touched). */
export type UserReinstated = { type: 'UserReinstated'; data: { userId: string; reinstatedBy: string; reinstatedAt: string } };
export type PasswordChanged = {
  type: 'PasswordChanged';
  data: { userId: string; passwordHash: string; changedAt: string; via: 'reset' | 'bootstrap' | 'user' };
};
export type PasswordResetRequested = {
  type: 'PasswordResetRequested';
  data: { userId: string; resetId: string; tokenHash: string; expiresAt: string; requestedAt: string };
};
export type EmailVerified = { type: 'EmailVerified'; data: { userId: string; email: string; verifiedAt: string } };
export type AdminRoleGranted = { type: 'AdminRoleGranted'; data: { userId: string; grantedBy: string; grantedAt: string } };
export type ProfileUpdated = {
  type: 'ProfileUpdated';
  data: { userId: string; firstName: string; lastName: string; updatedAt: string };
};

/**
 * The member asked to be forgotten (or an admin erased them, e.g. on a verified request). Its append
 * destroys the member's data key (shredding/shredder.ts): their personal fields in every event become
 * unreadable for good, while ids, amounts and dates stay for the ledger. `reason` is the admin's
 * record (write no personal data in it); null for a member's own request.
 */
export type MemberErased = {
  type: 'MemberErased';
  data: { userId: string; erasedBy: string; erasedAt: string; requestedBy: 'member' | 'admin'; reason: string | null };
};
/** A member asked to move the account to `newEmail`; only the holder of the mailed link can finish it. */
export type EmailChangeRequested = {
  type: 'EmailChangeRequested';
  data: { userId: string; changeId: string; newEmail: string; tokenHash: string; expiresAt: string; requestedAt: string };
};
/** The account's address is now `email` (the link mailed there was followed); `previousEmail` is told. */
export type EmailChanged = {
  type: 'EmailChanged';
  data: { userId: string; changeId: string; previousEmail: string; email: string; changedAt: string };
};

/**
 * The owner invited `email` to the staff with `staffRole`: a single-use link (the mail subscriber
 * sends it; the token's hash is here) valid until `expiresAt`. The stream has no account yet; a newer
 * invitation to the same address replaces this one.
 */
export type StaffInvited = {
  type: 'StaffInvited';
  data: {
    userId: string;
    invitationId: string;
    email: string;
    staffRole: StaffRole;
    tokenHash: string;
    expiresAt: string;
    invitedBy: string;
    invitedAt: string;
  };
};
/** The invitee followed the link: the staff account exists (an approved admin with `staffRole`), named `displayName`. */
export type StaffJoined = {
  type: 'StaffJoined';
  data: {
    userId: string;
    invitationId: string;
    email: string;
    displayName: string;
    passwordHash: string;
    staffRole: StaffRole;
    invitedBy: string;
    joinedAt: string;
  };
};
export type StaffRoleChanged = {
  type: 'StaffRoleChanged';
  data: { userId: string; staffRole: StaffRole; previousRole: StaffRole; changedBy: string; changedAt: string };
};
/** The owner removed the staff member: the account no longer signs in and every session of theirs ended with it. */
export type StaffRemoved = { type: 'StaffRemoved'; data: { userId: string; removedBy: string; removedAt: string } };

export type StaffEvent = StaffInvited | StaffJoined | StaffRoleChanged | StaffRemoved;

export type UserEvent =
  | StaffEvent
  | MemberErased
  | UserRegistered
  | EmailChangeRequested
  | EmailChanged
  | UserApproved
  | UserRejected
  | UserSuspended
  | UserReinstated
  | PasswordChanged
  | PasswordResetRequested
  | EmailVerified
  | AdminRoleGranted
  | ProfileUpdated;

// ── Commands ────────────────────────────────────────────────────────────────────────────────────
export type UserCommand =
  | { type: 'Register'; data: Omit<UserRegistered['data'], 'registeredAt'>; now: string }
  | { type: 'Approve'; approvedBy: string; now: string }
  | { type: 'Reject'; rejectedBy: string; reason?: string | null; now: string }
  | { type: 'Suspend'; suspendedBy: string; reason: string; now: string }
  | { type: 'Reinstate'; reinstatedBy: string; now: string }
  | { type: 'ChangePassword'; passwordHash: string; now: string }
  | { type: 'RequestPasswordReset'; resetId: string; tokenHash: string; expiresAt: string; now: string }
  | { type: 'ConfirmPasswordReset'; tokenHash: string; passwordHash: string; now: string }
  | { type: 'VerifyEmail'; email: string; now: string }
  | { type: 'UpdateProfile'; firstName: string; lastName: string; now: string }
  | { type: 'Erase'; erasedBy: string; requestedBy: 'member' | 'admin'; reason: string | null; now: string }
  | { type: 'RequestEmailChange'; changeId: string; newEmail: string; tokenHash: string; expiresAt: string; now: string }
  | { type: 'ConfirmEmailChange'; tokenHash: string; now: string }
  | {
      type: 'InviteStaff';
      /** The account the invitation will become (the stream's id): allocated by the first invitation to the address. */
      userId: string;
      invitationId: string;
      email: string;
      staffRole: StaffRole;
      tokenHash: string;
      expiresAt: string;
      invitedBy: string;
      now: string;
    }
  | { type: 'AcceptStaffInvitation'; tokenHash: string; displayName: string; passwordHash: string; now: string }
  | { type: 'ChangeStaffRole'; staffRole: StaffRole; changedBy: string; now: string }
  | { type: 'RemoveStaff'; removedBy: string; now: string }
  | {
      /** Start-up: the configured admin account exists, approved, role admin, with this password. */
      type: 'EnsureAdmin';
      register: Omit<UserRegistered['data'], 'registeredAt' | 'role'>;
      /** Whether the configured password already matches the stored hash (checked outside: argon2 is slow). */
      passwordMatches: boolean;
      now: string;
    };

// ── State ───────────────────────────────────────────────────────────────────────────────────────
export interface UserState {
  exists: boolean;
  userId: string;
  email: string;
  role: Role;
  status: UserStatus;
  passwordHash: string;
  emailVerified: boolean;
  firstName: string;
  lastName: string;
  pendingReset: { tokenHash: string; expiresAt: string } | null;
  /** After `MemberErased` the account is gone: every command on it answers "User not found". */
  erased: boolean;
  /** The newest requested address change; an older link stops working when a new one is asked for. */
  pendingEmailChange: { changeId: string; newEmail: string; tokenHash: string; expiresAt: string } | null;
  /** A staff member's role; null for a member and for an admin from before staff roles (an owner). */
  staffRole: StaffRole | null;
  /** The newest invitation to the staff, until it is accepted (the stream has no account before). */
  invitation: { invitationId: string; email: string; staffRole: StaffRole; tokenHash: string; expiresAt: string; invitedBy: string } | null;
  /** The owner removed this staff member: every command on the account answers "User not found". */
  staffRemoved: boolean;
}

export const INVALID_STAFF_INVITATION = 'This invitation link is invalid or has already been used';
export const EXPIRED_STAFF_INVITATION = 'This invitation link has expired. Please ask the site owner for a new one.';
/** A member, or an owner from before staff roles (the bootstrapped admin): not an invited staff account. */
export const NOT_STAFF = 'This account is not an invited staff member (an owner from ADMIN_EMAIL keeps every permission)';
export const OWN_STAFF_ACCOUNT = 'You cannot change or remove your own staff account';

export const SAME_EMAIL = 'This is already your email address';
export const EMAIL_CHANGE_APPROVED_ONLY =
  'You can change your email address once your account has been approved. Until then, write to support if it is wrong.';

/** Only an approved account may have a link mailed to another address (a pending one could mail anyone). */
export const mayChangeEmail = (status: UserStatus): boolean => status === 'approved';
export const INVALID_EMAIL_CHANGE_LINK = 'This email change link is invalid or has already been used';
export const EXPIRED_EMAIL_CHANGE_LINK = 'This email change link has expired. Please ask for a new one from your account settings.';

export const SYSTEM_ACTOR = 'system';

const NOT_FOUND = reject('user.not_found', 'User not found');

export const ALREADY_APPROVED = 'User is already approved and cannot be rejected; suspend the account instead';
export const SUSPEND_REASON_REQUIRED = 'reason: Please give a reason for suspending the account';

function decide(command: UserCommand, state: UserState) {
  const userId = state.userId;
  switch (command.type) {
    case 'Register':
      if (state.exists) return reject('user.exists', 'An account with this email already exists');
      return accept<UserEvent>({ type: 'UserRegistered', data: { ...command.data, registeredAt: command.now } });
    case 'EnsureAdmin':
      return ensureAdmin(command, state);
    case 'InviteStaff':
      // Only a stream with no account yet: an address with an account is refused before (staff.service.ts).
      if (state.exists) return reject('user.exists', 'An account with this email already exists');
      return accept<UserEvent>({
        type: 'StaffInvited',
        data: {
          userId: command.userId,
          invitationId: command.invitationId,
          email: command.email,
          staffRole: command.staffRole,
          tokenHash: command.tokenHash,
          expiresAt: command.expiresAt,
          invitedBy: command.invitedBy,
          invitedAt: command.now,
        },
      });
    case 'AcceptStaffInvitation': {
      const invitation = state.invitation;
      if (state.exists || !invitation || invitation.tokenHash !== command.tokenHash)
        return reject('auth.invalid_link', INVALID_STAFF_INVITATION);
      if (invitation.expiresAt <= command.now) return reject('auth.invalid_link', EXPIRED_STAFF_INVITATION);
      return accept<UserEvent>({
        type: 'StaffJoined',
        data: {
          userId,
          invitationId: invitation.invitationId,
          email: invitation.email,
          displayName: command.displayName,
          passwordHash: command.passwordHash,
          staffRole: invitation.staffRole,
          invitedBy: invitation.invitedBy,
          joinedAt: command.now,
        },
      });
    }
  }
  if (!state.exists || state.erased || state.staffRemoved) return NOT_FOUND;
  switch (command.type) {
    case 'ChangeStaffRole':
      if (!state.staffRole) return reject('user.state_conflict', NOT_STAFF);
      if (command.changedBy === userId) return reject('user.state_conflict', OWN_STAFF_ACCOUNT);
      if (command.staffRole === state.staffRole) return accept<UserEvent>();
      return accept<UserEvent>({
        type: 'StaffRoleChanged',
        data: { userId, staffRole: command.staffRole, previousRole: state.staffRole, changedBy: command.changedBy, changedAt: command.now },
      });
    case 'RemoveStaff':
      if (!state.staffRole) return reject('user.state_conflict', NOT_STAFF);
      if (command.removedBy === userId) return reject('user.state_conflict', OWN_STAFF_ACCOUNT);
      return accept<UserEvent>({ type: 'StaffRemoved', data: { userId, removedBy: command.removedBy, removedAt: command.now } });
    case 'Erase':
      if (state.role === 'admin') return reject('user.state_conflict', 'An admin account cannot be erased');
      return accept<UserEvent>({
        type: 'MemberErased',
        data: { userId, erasedBy: command.erasedBy, erasedAt: command.now, requestedBy: command.requestedBy, reason: command.reason },
      });
    case 'Approve':
      if (state.status === 'approved') return reject('user.state_conflict', 'User is already approved');
      if (state.status === 'rejected') return reject('user.state_conflict', 'User has been rejected and cannot be approved');
      if (state.status === 'suspended') return reject('user.state_conflict', 'User is suspended; reinstate the account instead');
      return accept<UserEvent>({ type: 'UserApproved', data: { userId, approvedBy: command.approvedBy, approvedAt: command.now } });
    case 'Reject':
      if (state.status === 'rejected') return reject('user.state_conflict', 'User is already rejected');
      if (state.status === 'approved') return reject('user.state_conflict', ALREADY_APPROVED);
      if (state.status === 'suspended') return reject('user.state_conflict', 'User is suspended and cannot be rejected');
      return accept<UserEvent>({
        type: 'UserRejected',
        data: { userId, rejectedBy: command.rejectedBy, rejectedAt: command.now, reason: command.reason ?? null },
      });
    case 'Suspend': {
      const reason = command.reason.trim();
      if (!reason) return reject('validation.invalid_input', SUSPEND_REASON_REQUIRED);
      if (state.role === 'admin') return reject('user.state_conflict', 'An admin account cannot be suspended');
      if (state.status === 'suspended') return reject('user.state_conflict', 'User is already suspended');
      if (state.status !== 'approved')
        return reject('user.state_conflict', `Only an approved member can be suspended (this account is ${state.status})`);
      return accept<UserEvent>({
        type: 'UserSuspended',
        data: { userId, reason, suspendedBy: command.suspendedBy, suspendedAt: command.now },
      });
    }
    case 'Reinstate':
      if (state.status !== 'suspended') return reject('user.state_conflict', 'User is not suspended');
      return accept<UserEvent>({ type: 'UserReinstated', data: { userId, reinstatedBy: command.reinstatedBy, reinstatedAt: command.now } });
    case 'ChangePassword':
      return accept<UserEvent>({
        type: 'PasswordChanged',
        data: { userId, passwordHash: command.passwordHash, changedAt: command.now, via: 'user' },
      });
    case 'RequestPasswordReset':
      return accept<UserEvent>({
        type: 'PasswordResetRequested',
        data: { userId, resetId: command.resetId, tokenHash: command.tokenHash, expiresAt: command.expiresAt, requestedAt: command.now },
      });
    case 'ConfirmPasswordReset': {
      const pending = state.pendingReset;
      if (!pending || pending.tokenHash !== command.tokenHash)
        return reject('auth.invalid_link', 'This password reset link is invalid or has already been used');
      if (pending.expiresAt <= command.now) return reject('auth.invalid_link', 'This password reset link has expired');
      return accept<UserEvent>({
        type: 'PasswordChanged',
        data: { userId, passwordHash: command.passwordHash, changedAt: command.now, via: 'reset' },
      });
    }
    case 'VerifyEmail':
      if (command.email.toLowerCase() !== state.email.toLowerCase())
        return reject('auth.invalid_link', 'This verification link is invalid');
      if (state.emailVerified) return accept<UserEvent>();
      return accept<UserEvent>({ type: 'EmailVerified', data: { userId, email: state.email, verifiedAt: command.now } });
    case 'RequestEmailChange':
      if (!mayChangeEmail(state.status)) return reject('user.email_change_not_allowed', EMAIL_CHANGE_APPROVED_ONLY);
      if (command.newEmail.toLowerCase() === state.email.toLowerCase()) return reject('validation.invalid_input', SAME_EMAIL);
      return accept<UserEvent>({
        type: 'EmailChangeRequested',
        data: {
          userId,
          changeId: command.changeId,
          newEmail: command.newEmail,
          tokenHash: command.tokenHash,
          expiresAt: command.expiresAt,
          requestedAt: command.now,
        },
      });
    case 'ConfirmEmailChange': {
      const pending = state.pendingEmailChange;
      if (!pending || pending.tokenHash !== command.tokenHash) return reject('auth.invalid_link', INVALID_EMAIL_CHANGE_LINK);
      if (pending.expiresAt <= command.now) return reject('auth.invalid_link', EXPIRED_EMAIL_CHANGE_LINK);
      return accept<UserEvent>({
        type: 'EmailChanged',
        data: { userId, changeId: pending.changeId, previousEmail: state.email, email: pending.newEmail, changedAt: command.now },
      });
    }
    case 'UpdateProfile':
      if (state.firstName === command.firstName && state.lastName === command.lastName) return accept<UserEvent>();
      return accept<UserEvent>({
        type: 'ProfileUpdated',
        data: { userId, firstName: command.firstName, lastName: command.lastName, updatedAt: command.now },
      });
  }
}

/** Emits only what is missing, so a restart with the same configuration appends nothing. */
function ensureAdmin(command: Extract<UserCommand, { type: 'EnsureAdmin' }>, state: UserState) {
  const { now, register } = command;
  const userId = state.exists ? state.userId : register.userId;
  const events: UserEvent[] = [];
  if (!state.exists) events.push({ type: 'UserRegistered', data: { ...register, role: 'admin', registeredAt: now } });
  else if (state.role !== 'admin') events.push({ type: 'AdminRoleGranted', data: { userId, grantedBy: SYSTEM_ACTOR, grantedAt: now } });
  if (state.status !== 'approved') events.push({ type: 'UserApproved', data: { userId, approvedBy: SYSTEM_ACTOR, approvedAt: now } });
  if (state.exists && !command.passwordMatches)
    events.push({ type: 'PasswordChanged', data: { userId, passwordHash: register.passwordHash, changedAt: now, via: 'bootstrap' } });
  return accept<UserEvent>(...events);
}

function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered': {
      const d = event.data;
      return {
        ...state,
        exists: true,
        userId: d.userId,
        email: d.email,
        role: d.role,
        status: 'pending',
        passwordHash: d.passwordHash,
        firstName: d.firstName,
        lastName: d.lastName,
      };
    }
    case 'UserApproved':
      return { ...state, status: 'approved' };
    case 'UserRejected':
      return { ...state, status: 'rejected' };
    case 'UserSuspended':
      return { ...state, status: 'suspended' };
    case 'UserReinstated':
      return { ...state, status: 'approved' };
    case 'PasswordChanged':
      return { ...state, passwordHash: event.data.passwordHash, pendingReset: null };
    case 'PasswordResetRequested':
      return { ...state, pendingReset: { tokenHash: event.data.tokenHash, expiresAt: event.data.expiresAt } };
    case 'EmailVerified':
      return { ...state, emailVerified: true };
    case 'AdminRoleGranted':
      return { ...state, role: 'admin' };
    case 'ProfileUpdated':
      return { ...state, firstName: event.data.firstName, lastName: event.data.lastName };
    case 'MemberErased':
      return {
        ...state,
        erased: true,
        email: '',
        firstName: '',
        lastName: '',
        passwordHash: '',
        pendingReset: null,
        pendingEmailChange: null,
      };
    case 'EmailChangeRequested': {
      const { changeId, newEmail, tokenHash, expiresAt } = event.data;
      return { ...state, pendingEmailChange: { changeId, newEmail, tokenHash, expiresAt } };
    }
    case 'EmailChanged':
      // Following the link proved the new mailbox, so the new address counts as verified.
      return { ...state, email: event.data.email, emailVerified: true, pendingEmailChange: null };
    case 'StaffInvited': {
      const { invitationId, email, staffRole, tokenHash, expiresAt, invitedBy } = event.data;
      return { ...state, userId: event.data.userId, invitation: { invitationId, email, staffRole, tokenHash, expiresAt, invitedBy } };
    }
    case 'StaffJoined': {
      const d = event.data;
      return {
        ...state,
        exists: true,
        userId: d.userId,
        email: d.email,
        role: 'admin',
        status: 'approved',
        passwordHash: d.passwordHash,
        emailVerified: true,
        firstName: d.displayName,
        lastName: '',
        staffRole: d.staffRole,
        invitation: null,
      };
    }
    case 'StaffRoleChanged':
      return { ...state, staffRole: event.data.staffRole };
    case 'StaffRemoved':
      return { ...state, staffRemoved: true };
    default:
      return state;
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: () => ({
    exists: false,
    userId: '',
    email: '',
    role: 'member',
    status: 'pending',
    passwordHash: '',
    emailVerified: false,
    firstName: '',
    lastName: '',
    pendingReset: null,
    erased: false,
    pendingEmailChange: null,
    staffRole: null,
    invitation: null,
    staffRemoved: false,
  }),
  decide,
  evolve,
};
