/**
 * The `users`, `password_resets` and `users_counts` read model, given the identity events as the
 * user decider decides them, then its rows (live and rebuilt from the log).
 */
import { describe, expect, it } from 'vitest';
import { UniqueViolation } from '../db/types.js';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { secondFactorDecider } from './secondFactor.decider.js';
import { type Role, userDecider, userStream } from './user.decider.js';
import { usersProjection } from './users.projection.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const T1 = '2026-03-02T09:00:00.000Z';
const T2 = '2026-03-03T10:30:00.000Z';
const T3 = '2026-03-04T11:45:00.000Z';

const { given } = projectionSpec(usersProjection);

/** An account's stream, registered at T1 (its first decision is the registration). */
function account(userId: string, email: string, opts: { role?: Role; geo?: boolean } = {}) {
  const s = stream(userStream(userId));
  const registered = s.decide(userDecider, {
    type: 'Register',
    data: {
      userId,
      email,
      firstName: 'Alice',
      lastName: 'Liddell',
      dateOfBirth: '1990-05-04',
      passwordHash: `hash-of-${userId}`,
      role: opts.role ?? 'member',
      ...(opts.geo === false ? {} : { geoCountry: 'DE', geoRegion: 'DE-BE' }),
    },
    now: T1,
  });
  return { ...s, registered };
}

const COUNTS = 'SELECT key, n FROM users_counts WHERE n <> 0 ORDER BY key';
const RESETS = 'SELECT token_hash, user_id, expires_at FROM password_resets ORDER BY token_hash';

describe('users projection', () => {
  it('UserRegistered: one pending row with every column, counted as pending:member', async () => {
    const alice = account(ALICE, 'Alice@Example.test');
    await given(alice.registered).thenTables({
      'SELECT * FROM users': [
        {
          id: ALICE,
          email: 'Alice@Example.test',
          email_lower: 'alice@example.test',
          first_name: 'Alice',
          last_name: 'Liddell',
          date_of_birth: '1990-05-04',
          password_hash: `hash-of-${ALICE}`,
          role: 'member',
          status: 'pending',
          approved: 0,
          email_verified: 0,
          geo_country: 'DE',
          geo_region: 'DE-BE',
          created_at: T1,
          approved_at: null,
          rejected_at: null,
          membership_status: 'inactive',
          subscription_status: null,
          erased_at: null,
          staff_role: null,
          staff_removed_at: null,
        },
      ],
      [COUNTS]: [{ key: 'pending:member', n: 1 }],
    });
  });

  it('UserRegistered without a region: the geo columns stay null', async () => {
    const bob = account(BOB, 'bob@example.test', { geo: false });
    await given(bob.registered).thenRows('SELECT id, geo_country, geo_region FROM users', [
      { id: BOB, geo_country: null, geo_region: null },
    ]);
  });

  it('UserApproved: approved with its time, the count moves from pending to approved', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const bob = account(BOB, 'bob@example.test');
    const approved = alice.decide(userDecider, { type: 'Approve', approvedBy: 'admin-1', now: T2 });
    await given(alice.registered, bob.registered, approved).thenTables({
      'SELECT id, status, approved, approved_at, rejected_at FROM users ORDER BY id': [
        { id: ALICE, status: 'approved', approved: 1, approved_at: T2, rejected_at: null },
        { id: BOB, status: 'pending', approved: 0, approved_at: null, rejected_at: null },
      ],
      [COUNTS]: [
        { key: 'approved:member', n: 1 },
        { key: 'pending:member', n: 1 },
      ],
    });
  });

  it('UserRejected: rejected with its time, counted as rejected:member', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const rejected = alice.decide(userDecider, { type: 'Reject', rejectedBy: 'admin-1', reason: 'not of age', now: T2 });
    await given(alice.registered, rejected).thenTables({
      'SELECT status, approved, approved_at, rejected_at FROM users': [
        { status: 'rejected', approved: 0, approved_at: null, rejected_at: T2 },
      ],
      [COUNTS]: [{ key: 'rejected:member', n: 1 }],
    });
  });

  it('PasswordResetRequested: one link per account, a newer request replaces the older one', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const bob = account(BOB, 'bob@example.test');
    const first = alice.decide(userDecider, { type: 'RequestPasswordReset', resetId: 'r1', tokenHash: 'tok-1', expiresAt: T2, now: T1 });
    const second = alice.decide(userDecider, { type: 'RequestPasswordReset', resetId: 'r2', tokenHash: 'tok-2', expiresAt: T3, now: T2 });
    const bobs = bob.decide(userDecider, { type: 'RequestPasswordReset', resetId: 'r3', tokenHash: 'tok-3', expiresAt: T3, now: T2 });
    await given(alice.registered, bob.registered, first, bobs, second).thenRows(RESETS, [
      { token_hash: 'tok-2', user_id: ALICE, expires_at: T3 },
      { token_hash: 'tok-3', user_id: BOB, expires_at: T3 },
    ]);
  });

  it('PasswordChanged (by a reset): the new hash, and the account has no reset link left', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const bob = account(BOB, 'bob@example.test');
    const requested = alice.decide(userDecider, {
      type: 'RequestPasswordReset',
      resetId: 'r1',
      tokenHash: 'tok-1',
      expiresAt: T3,
      now: T1,
    });
    const bobs = bob.decide(userDecider, { type: 'RequestPasswordReset', resetId: 'r2', tokenHash: 'tok-2', expiresAt: T3, now: T1 });
    const changed = alice.decide(userDecider, { type: 'ConfirmPasswordReset', tokenHash: 'tok-1', passwordHash: 'new-hash', now: T2 });
    await given(alice.registered, bob.registered, requested, bobs, changed).thenTables({
      'SELECT id, password_hash FROM users ORDER BY id': [
        { id: ALICE, password_hash: 'new-hash' },
        { id: BOB, password_hash: `hash-of-${BOB}` },
      ],
      [RESETS]: [{ token_hash: 'tok-2', user_id: BOB, expires_at: T3 }],
    });
  });

  it('EmailVerified: the address counts as verified', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const verified = alice.decide(userDecider, { type: 'VerifyEmail', email: 'ALICE@example.test', now: T2 });
    await given(alice.registered, verified).thenRows('SELECT email, email_verified FROM users', [
      { email: 'alice@example.test', email_verified: 1 },
    ]);
  });

  it('EmailChangeRequested changes nothing; EmailChanged sets the new address, its lower-case key and verified', async () => {
    const alice = account(ALICE, 'alice@example.test');
    // Only approved members change their address (issue 27 finding 4).
    const approved = alice.decide(userDecider, { type: 'Approve', approvedBy: 'admin-1', now: T2 });
    const requested = alice.decide(userDecider, {
      type: 'RequestEmailChange',
      changeId: 'c1',
      newEmail: 'Alice.New@Example.test',
      tokenHash: 'change-tok',
      expiresAt: T3,
      now: T2,
    });
    const row = 'SELECT email, email_lower, email_verified FROM users';
    await given(alice.registered, approved, requested).thenRows(row, [
      { email: 'alice@example.test', email_lower: 'alice@example.test', email_verified: 0 },
    ]);
    const changed = alice.decide(userDecider, { type: 'ConfirmEmailChange', tokenHash: 'change-tok', now: T2 });
    await given(alice.registered, approved, requested, changed).thenRows(row, [
      { email: 'Alice.New@Example.test', email_lower: 'alice.new@example.test', email_verified: 1 },
    ]);
  });

  it('EmailChanged to an address registered since the request: refused by the unique key, rolled back whole', async () => {
    const alice = account(ALICE, 'alice@example.test');
    // Only approved members change their address (issue 27 finding 4).
    const approved = alice.decide(userDecider, { type: 'Approve', approvedBy: 'admin-1', now: T2 });
    const requested = alice.decide(userDecider, {
      type: 'RequestEmailChange',
      changeId: 'c1',
      newEmail: 'bob@example.test',
      tokenHash: 'change-tok',
      expiresAt: T3,
      now: T2,
    });
    const bob = account(BOB, 'BOB@example.test');
    const changed = alice.decide(userDecider, { type: 'ConfirmEmailChange', tokenHash: 'change-tok', now: T2 });
    await given(alice.registered, approved, requested, bob.registered)
      .when(changed)
      .thenFails((err) => expect(err).toBeInstanceOf(UniqueViolation));
  });

  it('a second registration with the same address in another letter case: refused, nothing written', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const again = account(BOB, 'ALICE@Example.Test');
    await given(alice.registered)
      .when(again.registered)
      .thenFails((err) => expect(err).toBeInstanceOf(UniqueViolation));
  });

  it('ProfileUpdated: the new names', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const updated = alice.decide(userDecider, { type: 'UpdateProfile', firstName: 'Alicia', lastName: 'Pleasance', now: T2 });
    await given(alice.registered, updated).thenRows('SELECT first_name, last_name FROM users', [
      { first_name: 'Alicia', last_name: 'Pleasance' },
    ]);
  });

  it('AdminRoleGranted (the bootstrap finding a member under the admin address): admin, approved, counted as approved:admin', async () => {
    const alice = account(ALICE, 'admin@example.test');
    const ensured = alice.decide(userDecider, {
      type: 'EnsureAdmin',
      register: {
        userId: ALICE,
        email: 'admin@example.test',
        firstName: 'Site',
        lastName: 'Admin',
        dateOfBirth: '1980-01-01',
        passwordHash: 'admin-hash',
      },
      passwordMatches: false,
      now: T2,
    });
    await given(alice.registered, ensured).thenTables({
      'SELECT role, status, approved, approved_at, password_hash FROM users': [
        { role: 'admin', status: 'approved', approved: 1, approved_at: T2, password_hash: 'admin-hash' },
      ],
      [COUNTS]: [{ key: 'approved:admin', n: 1 }],
    });
  });

  it('MemberErased: every personal column a placeholder, reset links gone; status and dates stay, the count moves to erased:member', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const approved = alice.decide(userDecider, { type: 'Approve', approvedBy: 'admin-1', now: T2 });
    const reset = alice.decide(userDecider, { type: 'RequestPasswordReset', resetId: 'r1', tokenHash: 'tok-1', expiresAt: T3, now: T2 });
    const erased = alice.decide(userDecider, { type: 'Erase', erasedBy: ALICE, requestedBy: 'member', reason: null, now: T3 });
    await given(alice.registered, approved, reset, erased).thenTables({
      'SELECT * FROM users': [
        {
          id: ALICE,
          email: 'erased member a11ce000',
          email_lower: `erased:${ALICE}`,
          first_name: 'erased',
          last_name: 'member a11ce000',
          date_of_birth: '',
          password_hash: '',
          role: 'member',
          status: 'approved',
          approved: 1,
          email_verified: 0,
          geo_country: null,
          geo_region: null,
          created_at: T1,
          approved_at: T2,
          rejected_at: null,
          membership_status: 'inactive',
          subscription_status: null,
          erased_at: T3,
          staff_role: null,
          staff_removed_at: null,
        },
      ],
      [RESETS]: [],
      // Erased accounts are counted apart, so the admin stats leave them out of active members (issue 27 finding 8).
      [COUNTS]: [{ key: 'erased:member', n: 1 }],
    });
  });

  it('after an erasure the address is free: a new registration with it is a second row', async () => {
    const alice = account(ALICE, 'alice@example.test');
    const erased = alice.decide(userDecider, { type: 'Erase', erasedBy: 'admin-1', requestedBy: 'admin', reason: 'request #12', now: T2 });
    const again = account(BOB, 'Alice@example.test');
    await given(alice.registered, erased, again.registered).thenRows('SELECT id, email, email_lower FROM users ORDER BY id', [
      { id: ALICE, email: 'erased member a11ce000', email_lower: `erased:${ALICE}` },
      { id: BOB, email: 'Alice@example.test', email_lower: 'alice@example.test' },
    ]);
  });

  it("the account's second-factor events on its stream leave the users row as it was", async () => {
    const alice = account(ALICE, 'alice@example.test');
    const started = alice.decide(secondFactorDecider, {
      type: 'StartSecondFactorEnrolment',
      enrolmentId: 'e1',
      recoveryCodeHashes: ['rc1'],
      now: T2,
    });
    await given(alice.registered, started).thenTables({
      'SELECT id, status, password_hash FROM users': [{ id: ALICE, status: 'pending', password_hash: `hash-of-${ALICE}` }],
      [COUNTS]: [{ key: 'pending:member', n: 1 }],
    });
  });
});
