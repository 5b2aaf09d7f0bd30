/**
 * The `second_factors` read model (secondFactors.ts), given the second-factor events as their
 * decider decides them on the account's stream, then its rows (live and rebuilt from the log).
 */
import { describe, it } from 'vitest';
import { projectionSpec, stream } from '../eventstore/projection.testkit.js';
import { secondFactorDecider } from './secondFactor.decider.js';
import { secondFactorsProjection } from './secondFactors.js';
import { userDecider, userStream } from './user.decider.js';

const ALICE = 'a11ce000-0000-4000-8000-000000000001';
const BOB = 'b0b00000-0000-4000-8000-000000000002';
const T1 = '2026-03-02T09:00:00.000Z';
const T2 = '2026-03-03T10:30:00.000Z';
const T3 = '2026-03-04T11:45:00.000Z';

const { given } = projectionSpec(secondFactorsProjection);
const ROWS = 'SELECT user_id, status, enrolment_id, enrolled_at, recovery_codes_left FROM second_factors ORDER BY user_id';

/** A registered account's stream (its registration is no second-factor row). */
function account(userId: string) {
  const s = stream(userStream(userId));
  const registered = s.decide(userDecider, {
    type: 'Register',
    data: {
      userId,
      email: `${userId}@example.test`,
      firstName: 'Alice',
      lastName: 'Liddell',
      dateOfBirth: '1990-05-04',
      passwordHash: 'h',
      role: 'member',
    },
    now: T1,
  });
  const start = (enrolmentId: string, codes: string[], now: string) =>
    s.decide(secondFactorDecider, { type: 'StartSecondFactorEnrolment', enrolmentId, recoveryCodeHashes: codes, now });
  const confirm = (enrolmentId: string, now: string) =>
    s.decide(secondFactorDecider, { type: 'ConfirmSecondFactor', enrolmentId, codeValid: true, now });
  return { ...s, registered, start, confirm };
}

describe('second-factors projection', () => {
  it('a registration alone: no row', async () => {
    const alice = account(ALICE);
    await given(alice.registered).thenRows(ROWS, []);
  });

  it('SecondFactorEnrolmentStarted: a pending row with the number of recovery codes', async () => {
    const alice = account(ALICE);
    const started = alice.start('e1', ['rc1', 'rc2', 'rc3'], T1);
    await given(alice.registered, started).thenRows(ROWS, [
      { user_id: ALICE, status: 'pending', enrolment_id: 'e1', enrolled_at: null, recovery_codes_left: 3 },
    ]);
  });

  it('a second start before confirming replaces the pending enrolment', async () => {
    const alice = account(ALICE);
    const first = alice.start('e1', ['rc1', 'rc2', 'rc3'], T1);
    const second = alice.start('e2', ['rc4', 'rc5'], T2);
    await given(alice.registered, first, second).thenRows(ROWS, [
      { user_id: ALICE, status: 'pending', enrolment_id: 'e2', enrolled_at: null, recovery_codes_left: 2 },
    ]);
  });

  it('SecondFactorEnrolled: enabled with its time', async () => {
    const alice = account(ALICE);
    const started = alice.start('e1', ['rc1', 'rc2'], T1);
    const enrolled = alice.confirm('e1', T2);
    await given(alice.registered, started, enrolled).thenRows(ROWS, [
      { user_id: ALICE, status: 'enabled', enrolment_id: 'e1', enrolled_at: T2, recovery_codes_left: 2 },
    ]);
  });

  it('RecoveryCodeUsed: the codes left go down one by one', async () => {
    const alice = account(ALICE);
    const started = alice.start('e1', ['rc1', 'rc2', 'rc3'], T1);
    const enrolled = alice.confirm('e1', T1);
    const used1 = alice.decide(secondFactorDecider, { type: 'UseRecoveryCode', codeHash: 'rc2', now: T2 });
    const used2 = alice.decide(secondFactorDecider, { type: 'UseRecoveryCode', codeHash: 'rc1', now: T3 });
    await given(alice.registered, started, enrolled, used1, used2).thenRows(ROWS, [
      { user_id: ALICE, status: 'enabled', enrolment_id: 'e1', enrolled_at: T1, recovery_codes_left: 1 },
    ]);
  });

  it("SecondFactorRemoved: the account's row is gone, another account's stays", async () => {
    const alice = account(ALICE);
    const bob = account(BOB);
    const aliceStarted = alice.start('e1', ['rc1'], T1);
    const aliceEnrolled = alice.confirm('e1', T1);
    const bobStarted = bob.start('e2', ['rc2'], T1);
    const removed = alice.decide(secondFactorDecider, { type: 'RemoveSecondFactor', proofValid: true, removedBy: ALICE, now: T2 });
    await given(alice.registered, bob.registered, aliceStarted, aliceEnrolled, bobStarted, removed).thenRows(ROWS, [
      { user_id: BOB, status: 'pending', enrolment_id: 'e2', enrolled_at: null, recovery_codes_left: 1 },
    ]);
  });

  it('after a removal a new enrolment starts from scratch', async () => {
    const alice = account(ALICE);
    const started = alice.start('e1', ['rc1', 'rc2'], T1);
    const enrolled = alice.confirm('e1', T1);
    const removed = alice.decide(secondFactorDecider, { type: 'RemoveSecondFactor', proofValid: true, removedBy: ALICE, now: T2 });
    const again = alice.start('e2', ['rc3', 'rc4', 'rc5'], T3);
    await given(alice.registered, started, enrolled, removed, again).thenRows(ROWS, [
      { user_id: ALICE, status: 'pending', enrolment_id: 'e2', enrolled_at: null, recovery_codes_left: 3 },
    ]);
  });

  it('MemberErased: the erased member’s factor is gone with them', async () => {
    const alice = account(ALICE);
    const bob = account(BOB);
    const started = alice.start('e1', ['rc1'], T1);
    const enrolled = alice.confirm('e1', T1);
    const bobStarted = bob.start('e2', ['rc2'], T1);
    const erased = alice.decide(userDecider, { type: 'Erase', erasedBy: ALICE, requestedBy: 'member', reason: null, now: T2 });
    await given(alice.registered, bob.registered, started, enrolled, bobStarted, erased).thenRows(ROWS, [
      { user_id: BOB, status: 'pending', enrolment_id: 'e2', enrolled_at: null, recovery_codes_left: 1 },
    ]);
  });
});
