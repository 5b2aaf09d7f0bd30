/** Given these events, when this command, then these events (or this error). */
import { describe, expect, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import {
  ALREADY_ENABLED,
  INVALID_CODE,
  INVALID_PROOF,
  INVALID_RECOVERY_CODE,
  NO_PENDING_ENROLMENT,
  NOT_ENABLED,
  type SecondFactorCommand,
  type SecondFactorEvent,
  secondFactorDecider,
} from './secondFactor.decider.js';
import type { UserEvent } from './user.decider.js';

const NOW = '2026-01-15T12:00:00.000Z';

const registered: UserEvent = {
  type: 'UserRegistered',
  data: {
    userId: 'u1',
    email: 'ann@example.test',
    firstName: 'Ann',
    lastName: 'Lee',
    dateOfBirth: '1990-01-01',
    passwordHash: 'hash-1',
    role: 'admin',
    registeredAt: NOW,
  },
};
const started: SecondFactorEvent = {
  type: 'SecondFactorEnrolmentStarted',
  data: { userId: 'u1', enrolmentId: 'e1', method: 'totp', recoveryCodeHashes: ['h1', 'h2'], startedAt: NOW },
};
const enrolled: SecondFactorEvent = {
  type: 'SecondFactorEnrolled',
  data: { userId: 'u1', enrolmentId: 'e1', method: 'totp', enrolledAt: NOW },
};
const usedH1: SecondFactorEvent = {
  type: 'RecoveryCodeUsed',
  data: { userId: 'u1', enrolmentId: 'e1', codeHash: 'h1', remaining: 1, usedAt: NOW },
};
const removed: SecondFactorEvent = {
  type: 'SecondFactorRemoved',
  data: { userId: 'u1', enrolmentId: 'e1', removedBy: 'u1', removedAt: NOW },
};

const { given } = deciderSpec(secondFactorDecider);

const start = (enrolmentId = 'e1'): SecondFactorCommand => ({
  type: 'StartSecondFactorEnrolment',
  enrolmentId,
  recoveryCodeHashes: ['h1', 'h2'],
  now: NOW,
});
const confirm = (codeValid: boolean, enrolmentId = 'e1'): SecondFactorCommand => ({
  type: 'ConfirmSecondFactor',
  enrolmentId,
  codeValid,
  now: NOW,
});
const useCode = (codeHash: string): SecondFactorCommand => ({ type: 'UseRecoveryCode', codeHash, now: NOW });
const remove = (proofValid: boolean): SecondFactorCommand => ({ type: 'RemoveSecondFactor', proofValid, removedBy: 'u1', now: NOW });

describe('second factor decider: enrolment', () => {
  it('starts an enrolment with the recovery codes’ hashes', () => {
    thenEvents(given([registered]).when(start()), [started]);
  });
  it('refuses an unknown account', () => {
    thenError(given([]).when(start()), 'user.not_found', 'User not found');
  });
  it('restarting a pending enrolment replaces it (the older secret stops counting)', () => {
    const restarted: SecondFactorEvent = { type: 'SecondFactorEnrolmentStarted', data: { ...started.data, enrolmentId: 'e2' } };
    thenEvents(given([registered, started]).when(start('e2')), [restarted]);
    thenError(given([registered, started, restarted]).when(confirm(true, 'e1')), 'mfa.no_pending_enrolment', NO_PENDING_ENROLMENT);
  });
  it('refuses a new enrolment while one is enabled', () => {
    thenError(given([registered, started, enrolled]).when(start('e2')), 'mfa.already_enabled', ALREADY_ENABLED);
  });
  it('is enabled by a correct code for the pending enrolment', () => {
    thenEvents(given([registered, started]).when(confirm(true)), [enrolled]);
  });
  it('stays pending after a wrong code', () => {
    thenError(given([registered, started]).when(confirm(false)), 'mfa.enrolment_code_invalid', INVALID_CODE);
  });
  it('cannot be confirmed without a pending enrolment, or twice', () => {
    thenError(given([registered]).when(confirm(true)), 'mfa.no_pending_enrolment', NO_PENDING_ENROLMENT);
    thenError(given([registered, started, enrolled]).when(confirm(true)), 'mfa.already_enabled', ALREADY_ENABLED);
  });
});

describe('second factor decider: recovery codes', () => {
  it('spends a recovery code once', () => {
    thenEvents(given([registered, started, enrolled]).when(useCode('h1')), [usedH1]);
    thenError(given([registered, started, enrolled, usedH1]).when(useCode('h1')), 'mfa.invalid_code', INVALID_RECOVERY_CODE);
  });
  it('counts down what is left', () => {
    const last = given([registered, started, enrolled, usedH1]).when(useCode('h2'));
    expect(last.ok && last.events[0]?.data).toMatchObject({ codeHash: 'h2', remaining: 0 });
  });
  it('refuses unknown codes, and codes of an enrolment not yet confirmed', () => {
    thenError(given([registered, started, enrolled]).when(useCode('nope')), 'mfa.invalid_code', INVALID_RECOVERY_CODE);
    thenError(given([registered, started]).when(useCode('h1')), 'mfa.invalid_code', INVALID_RECOVERY_CODE);
  });
});

describe('second factor decider: removal', () => {
  it('removes an enabled factor with a valid proof', () => {
    thenEvents(given([registered, started, enrolled]).when(remove(true)), [removed]);
  });
  it('refuses a wrong password or code', () => {
    thenError(given([registered, started, enrolled]).when(remove(false)), 'mfa.invalid_code', INVALID_PROOF);
  });
  it('has nothing to remove when not enabled; after removal the recovery codes are void and a new enrolment may start', () => {
    thenError(given([registered]).when(remove(true)), 'mfa.not_enabled', NOT_ENABLED);
    thenError(given([registered, started, enrolled, removed]).when(useCode('h2')), 'mfa.invalid_code', INVALID_RECOVERY_CODE);
    thenEvents(given([registered, started, enrolled, removed]).when(start()), [started]);
  });
});
