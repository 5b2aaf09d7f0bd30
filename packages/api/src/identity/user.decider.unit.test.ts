/** Given these events, when this command, then these events (or this error). */
import { describe, expect, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import { EMAIL_CHANGE_APPROVED_ONLY, type UserCommand, type UserEvent, userDecider } from './user.decider.js';

const NOW = '2026-01-15T12:00:00.000Z';
const LATER = '2026-01-15T12:30:00.000Z';
const MUCH_LATER = '2026-01-15T14:00:00.000Z';

const registered: UserEvent = {
  type: 'UserRegistered',
  data: {
    userId: 'u1',
    email: 'Ann@Example.test',
    firstName: 'Ann',
    lastName: 'Lee',
    dateOfBirth: '1990-01-01',
    passwordHash: 'hash-1',
    role: 'member',
    registeredAt: NOW,
    geoCountry: 'DE',
    geoRegion: 'BE',
  },
};
const approved: UserEvent = { type: 'UserApproved', data: { userId: 'u1', approvedBy: 'admin', approvedAt: NOW } };
const rejected: UserEvent = { type: 'UserRejected', data: { userId: 'u1', rejectedBy: 'admin', rejectedAt: NOW, reason: null } };
const resetRequested: UserEvent = {
  type: 'PasswordResetRequested',
  data: { userId: 'u1', resetId: 'r1', tokenHash: 'th-1', expiresAt: '2026-01-15T13:00:00.000Z', requestedAt: NOW },
};

const { given } = deciderSpec(userDecider);

const { registeredAt: _r, ...registerData } = registered.data;

describe('user decider: registration', () => {
  it('registers a new user as pending', () => {
    thenEvents(given([]).when({ type: 'Register', data: registerData, now: NOW }), [registered]);
    const { state } = given([registered]);
    expect(state).toMatchObject({ exists: true, status: 'pending', role: 'member', email: 'Ann@Example.test' });
  });
  it('refuses a second registration on the same stream', () => {
    thenError(given([registered]).when({ type: 'Register', data: registerData, now: NOW }), 'user.exists');
  });
});

describe('user decider: approval', () => {
  it('approves a pending user', () => {
    thenEvents(given([registered]).when({ type: 'Approve', approvedBy: 'admin', now: NOW }), [approved]);
  });
  it('approving twice is a conflict', () => {
    thenError(
      given([registered, approved]).when({ type: 'Approve', approvedBy: 'admin', now: NOW }),
      'user.state_conflict',
      'User is already approved',
    );
  });
  it('approving a rejected user is a conflict', () => {
    thenError(
      given([registered, rejected]).when({ type: 'Approve', approvedBy: 'admin', now: NOW }),
      'user.state_conflict',
      'User has been rejected and cannot be approved',
    );
  });
  it('approving an unknown user is not found', () => {
    thenError(given([]).when({ type: 'Approve', approvedBy: 'admin', now: NOW }), 'user.not_found');
  });
  it('rejects a pending user with a reason', () => {
    thenEvents(given([registered]).when({ type: 'Reject', rejectedBy: 'admin', reason: 'blurry id', now: NOW }), [
      { type: 'UserRejected', data: { userId: 'u1', rejectedBy: 'admin', rejectedAt: NOW, reason: 'blurry id' } },
    ]);
  });
  it('rejecting twice, rejecting an approved user or an unknown user is refused', () => {
    thenError(given([registered, rejected]).when({ type: 'Reject', rejectedBy: 'admin', now: NOW }), 'user.state_conflict');
    thenError(given([registered, approved]).when({ type: 'Reject', rejectedBy: 'admin', now: NOW }), 'user.state_conflict');
    thenError(given([]).when({ type: 'Reject', rejectedBy: 'admin', now: NOW }), 'user.not_found');
  });
});

describe('user decider: suspension', () => {
  const suspend = (reason = 'Chargeback fraud'): UserCommand => ({ type: 'Suspend', suspendedBy: 'admin', reason, now: LATER });
  const reinstate: UserCommand = { type: 'Reinstate', reinstatedBy: 'admin', now: MUCH_LATER };
  const suspended: UserEvent = {
    type: 'UserSuspended',
    data: { userId: 'u1', reason: 'Chargeback fraud', suspendedBy: 'admin', suspendedAt: LATER },
  };
  const reinstated: UserEvent = { type: 'UserReinstated', data: { userId: 'u1', reinstatedBy: 'admin', reinstatedAt: MUCH_LATER } };

  it('suspends an approved member with a trimmed reason, and reinstates them as approved', () => {
    thenEvents(given([registered, approved]).when(suspend('  Chargeback fraud ')), [suspended]);
    expect(given([registered, approved, suspended]).state.status).toBe('suspended');
    thenEvents(given([registered, approved, suspended]).when(reinstate), [reinstated]);
    expect(given([registered, approved, suspended, reinstated]).state.status).toBe('approved');
  });

  it('refuses no reason, a pending, rejected or suspended account, an admin, an erased or unknown one', () => {
    thenError(
      given([registered, approved]).when(suspend('  ')),
      'validation.invalid_input',
      'reason: Please give a reason for suspending the account',
    );
    thenError(
      given([registered]).when(suspend()),
      'user.state_conflict',
      'Only an approved member can be suspended (this account is pending)',
    );
    thenError(given([registered, rejected]).when(suspend()), 'user.state_conflict');
    thenError(given([registered, approved, suspended]).when(suspend()), 'user.state_conflict', 'User is already suspended');
    const admin: UserEvent = { ...registered, data: { ...registered.data, role: 'admin' } };
    thenError(given([admin, approved]).when(suspend()), 'user.state_conflict', 'An admin account cannot be suspended');
    const erased: UserEvent = {
      type: 'MemberErased',
      data: { userId: 'u1', erasedBy: 'u1', erasedAt: NOW, requestedBy: 'member', reason: null },
    };
    thenError(given([registered, approved, erased]).when(suspend()), 'user.not_found');
    thenError(given([]).when(suspend()), 'user.not_found');
  });

  it('reinstates only a suspended account; a suspended one is neither approved nor rejected again', () => {
    thenError(given([registered, approved]).when(reinstate), 'user.state_conflict', 'User is not suspended');
    thenError(given([registered]).when(reinstate), 'user.state_conflict');
    thenError(given([registered, approved, suspended]).when({ type: 'Approve', approvedBy: 'admin', now: NOW }), 'user.state_conflict');
    thenError(given([registered, approved, suspended]).when({ type: 'Reject', rejectedBy: 'admin', now: NOW }), 'user.state_conflict');
  });

  it('rejecting an approved member points to suspension', () => {
    thenError(
      given([registered, approved]).when({ type: 'Reject', rejectedBy: 'admin', now: NOW }),
      'user.state_conflict',
      'User is already approved and cannot be rejected; suspend the account instead',
    );
  });
});

describe('user decider: passwords', () => {
  it('changes the password', () => {
    thenEvents(given([registered]).when({ type: 'ChangePassword', passwordHash: 'hash-2', now: NOW }), [
      { type: 'PasswordChanged', data: { userId: 'u1', passwordHash: 'hash-2', changedAt: NOW, via: 'user' } },
    ]);
  });
  it('records a reset request, and a confirmation with its token changes the password once', () => {
    thenEvents(
      given([registered]).when({
        type: 'RequestPasswordReset',
        resetId: 'r1',
        tokenHash: 'th-1',
        expiresAt: '2026-01-15T13:00:00.000Z',
        now: NOW,
      }),
      [resetRequested],
    );
    const changed: UserEvent = { type: 'PasswordChanged', data: { userId: 'u1', passwordHash: 'hash-2', changedAt: LATER, via: 'reset' } };
    const confirm: UserCommand = { type: 'ConfirmPasswordReset', tokenHash: 'th-1', passwordHash: 'hash-2', now: LATER };
    thenEvents(given([registered, resetRequested]).when(confirm), [changed]);
    thenError(
      given([registered, resetRequested, changed]).when(confirm),
      'auth.invalid_link',
      'This password reset link is invalid or has already been used',
    );
  });
  it('refuses an expired, wrong or absent reset token', () => {
    const confirm = (tokenHash: string, now: string): UserCommand => ({ type: 'ConfirmPasswordReset', tokenHash, passwordHash: 'h', now });
    thenError(
      given([registered, resetRequested]).when(confirm('th-1', MUCH_LATER)),
      'auth.invalid_link',
      'This password reset link has expired',
    );
    thenError(given([registered, resetRequested]).when(confirm('other', LATER)), 'auth.invalid_link');
    thenError(given([registered]).when(confirm('th-1', LATER)), 'auth.invalid_link');
    thenError(given([]).when(confirm('th-1', LATER)), 'user.not_found');
  });
  it('a newer reset request replaces the older token', () => {
    const newer: UserEvent = { type: 'PasswordResetRequested', data: { ...resetRequested.data, resetId: 'r2', tokenHash: 'th-2' } };
    thenError(
      given([registered, resetRequested, newer]).when({ type: 'ConfirmPasswordReset', tokenHash: 'th-1', passwordHash: 'h', now: LATER }),
      'auth.invalid_link',
    );
  });
});

describe('user decider: e-mail verification and profile', () => {
  it('verifies the e-mail once (case-insensitive address), then is a no-op', () => {
    const verified: UserEvent = { type: 'EmailVerified', data: { userId: 'u1', email: 'Ann@Example.test', verifiedAt: NOW } };
    thenEvents(given([registered]).when({ type: 'VerifyEmail', email: 'ann@example.test', now: NOW }), [verified]);
    thenEvents(given([registered, verified]).when({ type: 'VerifyEmail', email: 'ann@example.test', now: NOW }), []);
    thenError(given([registered]).when({ type: 'VerifyEmail', email: 'other@example.test', now: NOW }), 'auth.invalid_link');
  });
  it('updates first and last name, and ignores an unchanged profile', () => {
    thenEvents(given([registered]).when({ type: 'UpdateProfile', firstName: 'Anna', lastName: 'Lee', now: NOW }), [
      { type: 'ProfileUpdated', data: { userId: 'u1', firstName: 'Anna', lastName: 'Lee', updatedAt: NOW } },
    ]);
    thenEvents(given([registered]).when({ type: 'UpdateProfile', firstName: 'Ann', lastName: 'Lee', now: NOW }), []);
    thenError(given([]).when({ type: 'UpdateProfile', firstName: 'A', lastName: 'B', now: NOW }), 'user.not_found');
  });
});

describe('user decider: admin bootstrap', () => {
  const register = { userId: 'a1', email: 'admin@example.test', firstName: 'Admin', lastName: '', dateOfBirth: '', passwordHash: 'ah' };
  const ensure = (passwordMatches: boolean): UserCommand => ({ type: 'EnsureAdmin', register, passwordMatches, now: NOW });
  const adminRegistered: UserEvent = { type: 'UserRegistered', data: { ...register, role: 'admin', registeredAt: NOW } };
  const adminApproved: UserEvent = { type: 'UserApproved', data: { userId: 'a1', approvedBy: 'system', approvedAt: NOW } };

  it('creates an approved admin when none exists', () => {
    thenEvents(given([]).when(ensure(false)), [adminRegistered, adminApproved]);
  });
  it('appends nothing when everything already matches', () => {
    thenEvents(given([adminRegistered, adminApproved]).when(ensure(true)), []);
  });
  it('applies a changed password', () => {
    thenEvents(given([adminRegistered, adminApproved]).when(ensure(false)), [
      { type: 'PasswordChanged', data: { userId: 'a1', passwordHash: 'ah', changedAt: NOW, via: 'bootstrap' } },
    ]);
  });
  it('promotes and approves an existing member with that address', () => {
    thenEvents(given([registered]).when(ensure(true)), [
      { type: 'AdminRoleGranted', data: { userId: 'u1', grantedBy: 'system', grantedAt: NOW } },
      { type: 'UserApproved', data: { userId: 'u1', approvedBy: 'system', approvedAt: NOW } },
    ]);
  });
});

describe('user decider: erasure', () => {
  const erase = { type: 'Erase', erasedBy: 'u1', requestedBy: 'member', reason: null, now: LATER } as const;
  const erased: UserEvent = {
    type: 'MemberErased',
    data: { userId: 'u1', erasedBy: 'u1', erasedAt: LATER, requestedBy: 'member', reason: null },
  };

  it('erases a member, pending or approved or rejected', () => {
    thenEvents(given([registered]).when(erase), [erased]);
    thenEvents(given([registered, approved]).when(erase), [erased]);
    thenEvents(given([registered, rejected]).when({ ...erase, erasedBy: 'admin', requestedBy: 'admin', reason: 'request #1' }), [
      { type: 'MemberErased', data: { userId: 'u1', erasedBy: 'admin', erasedAt: LATER, requestedBy: 'admin', reason: 'request #1' } },
    ]);
  });

  it('an erased account is gone: every command answers not found', () => {
    for (const command of [
      erase,
      { type: 'Approve', approvedBy: 'admin', now: MUCH_LATER },
      { type: 'ChangePassword', passwordHash: 'h', now: MUCH_LATER },
      { type: 'UpdateProfile', firstName: 'A', lastName: 'B', now: MUCH_LATER },
    ] as UserCommand[])
      thenError(given([registered, approved, erased]).when(command), 'user.not_found', 'User not found');
  });

  it('refuses to erase an admin account', () => {
    const admin: UserEvent = { ...registered, data: { ...registered.data, role: 'admin' } } as UserEvent;
    thenError(given([admin]).when(erase), 'user.state_conflict', 'An admin account cannot be erased');
  });
});

describe('user decider: e-mail change', () => {
  const requested: UserEvent = {
    type: 'EmailChangeRequested',
    data: { userId: 'u1', changeId: 'c1', newEmail: 'ann@new.test', tokenHash: 'ec-1', expiresAt: LATER, requestedAt: NOW },
  };
  const request = {
    type: 'RequestEmailChange',
    changeId: 'c1',
    newEmail: 'ann@new.test',
    tokenHash: 'ec-1',
    expiresAt: LATER,
    now: NOW,
  } as const;

  it('records a request for a different address, and refuses the current one in any letter case', () => {
    thenEvents(given([registered, approved]).when(request), [requested]);
    thenError(
      given([registered, approved]).when({ ...request, newEmail: 'ann@example.TEST' }),
      'validation.invalid_input',
      'This is already your email address',
    );
    thenError(given([]).when(request), 'user.not_found');
  });
  it('refuses a pending or rejected account: it could have a link mailed to anyone', () => {
    thenError(given([registered]).when(request), 'user.email_change_not_allowed', EMAIL_CHANGE_APPROVED_ONLY);
    const rejected: UserEvent = { type: 'UserRejected', data: { userId: 'u1', rejectedBy: 'a1', rejectedAt: NOW, reason: null } };
    thenError(given([registered, rejected]).when(request), 'user.email_change_not_allowed', EMAIL_CHANGE_APPROVED_ONLY);
  });
  it('changes the address with the matching link before it expires, from the old address', () => {
    thenEvents(given([registered, requested]).when({ type: 'ConfirmEmailChange', tokenHash: 'ec-1', now: NOW }), [
      {
        type: 'EmailChanged',
        data: { userId: 'u1', changeId: 'c1', previousEmail: 'Ann@Example.test', email: 'ann@new.test', changedAt: NOW },
      },
    ]);
  });
  it('refuses a wrong, used, replaced or expired link', () => {
    const changed: UserEvent = {
      type: 'EmailChanged',
      data: { userId: 'u1', changeId: 'c1', previousEmail: 'Ann@Example.test', email: 'ann@new.test', changedAt: NOW },
    };
    const newer: UserEvent = { ...requested, data: { ...requested.data, changeId: 'c2', tokenHash: 'ec-2' } } as UserEvent;
    const confirm = { type: 'ConfirmEmailChange', tokenHash: 'ec-1', now: NOW } as const;
    thenError(given([registered, requested]).when({ ...confirm, tokenHash: 'other' }), 'auth.invalid_link');
    thenError(given([registered, requested, changed]).when(confirm), 'auth.invalid_link');
    thenError(given([registered, requested, newer]).when(confirm), 'auth.invalid_link');
    const expired = given([registered, requested]).when({ ...confirm, now: MUCH_LATER });
    expect(!expired.ok && expired.error.message).toMatch(/expired/);
  });
});

describe('user decider: staff accounts (issue 42)', () => {
  const invite = {
    type: 'InviteStaff',
    userId: 's1',
    invitationId: 'i1',
    email: 'sam@example.test',
    staffRole: 'support',
    tokenHash: 'st-1',
    expiresAt: LATER,
    invitedBy: 'owner',
    now: NOW,
  } as const;
  const invited: UserEvent = {
    type: 'StaffInvited',
    data: {
      userId: 's1',
      invitationId: 'i1',
      email: 'sam@example.test',
      staffRole: 'support',
      tokenHash: 'st-1',
      expiresAt: LATER,
      invitedBy: 'owner',
      invitedAt: NOW,
    },
  };
  const accept = { type: 'AcceptStaffInvitation', tokenHash: 'st-1', displayName: 'Sam', passwordHash: 'hash-s', now: NOW } as const;
  const joined: UserEvent = {
    type: 'StaffJoined',
    data: {
      userId: 's1',
      invitationId: 'i1',
      email: 'sam@example.test',
      displayName: 'Sam',
      passwordHash: 'hash-s',
      staffRole: 'support',
      invitedBy: 'owner',
      joinedAt: NOW,
    },
  };

  it('invites, then the link makes an approved admin with the invited role, once', () => {
    thenEvents(given([]).when(invite), [invited]);
    expect(given([invited]).state).toMatchObject({ exists: false, invitation: { tokenHash: 'st-1', staffRole: 'support' } });
    thenEvents(given([invited]).when(accept), [joined]);
    expect(given([invited, joined]).state).toMatchObject({ exists: true, role: 'admin', status: 'approved', staffRole: 'support' });
    thenError(given([invited, joined]).when(accept), 'auth.invalid_link');
    thenError(given([invited, joined]).when(invite), 'user.exists');
  });
  it('refuses a wrong, replaced or expired link, and no account is made', () => {
    const newer: UserEvent = { ...invited, data: { ...invited.data, invitationId: 'i2', tokenHash: 'st-2' } } as UserEvent;
    thenError(given([invited]).when({ ...accept, tokenHash: 'other' }), 'auth.invalid_link');
    thenError(given([invited, newer]).when(accept), 'auth.invalid_link');
    const expired = given([invited]).when({ ...accept, now: MUCH_LATER });
    expect(!expired.ok && expired.error.message).toMatch(/expired/);
    thenError(given([]).when(accept), 'auth.invalid_link');
  });
  it('changes a role (the same role is no event) and removes a staff member; not their own account, not a member', () => {
    const change = { type: 'ChangeStaffRole', staffRole: 'finance', changedBy: 'owner', now: NOW } as const;
    thenEvents(given([invited, joined]).when(change), [
      {
        type: 'StaffRoleChanged',
        data: { userId: 's1', staffRole: 'finance', previousRole: 'support', changedBy: 'owner', changedAt: NOW },
      },
    ]);
    thenEvents(given([invited, joined]).when({ ...change, staffRole: 'support' }), []);
    thenError(given([invited, joined]).when({ ...change, changedBy: 's1' }), 'user.state_conflict');
    thenError(given([registered]).when(change), 'user.state_conflict');
    const remove = { type: 'RemoveStaff', removedBy: 'owner', now: NOW } as const;
    const removed: UserEvent = { type: 'StaffRemoved', data: { userId: 's1', removedBy: 'owner', removedAt: NOW } };
    thenEvents(given([invited, joined]).when(remove), [removed]);
    thenError(given([invited, joined]).when({ ...remove, removedBy: 's1' }), 'user.state_conflict');
    // A removed account is gone for every command.
    thenError(given([invited, joined, removed]).when(remove), 'user.not_found');
    thenError(given([invited, joined, removed]).when(change), 'user.not_found');
  });
});
