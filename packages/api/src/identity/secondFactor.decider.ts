/**
 * The second factor of an account, decided on the account's own stream (`user-{userId}`) so its
 * history reads in one place: enrolment started (recovery codes' hashes), confirmed with a correct
 * code, recovery codes spent one by one, removed. Pure: whether a code or password was right is
 * checked outside (the secret is encrypted outside the log) and arrives in the command.
 * The TOTP secret itself never enters an event: it lives encrypted in `second_factor_secrets`.
 */
import { accept, type Decider, reject } from '../shared/decider.js';
import type { UserEvent } from './user.decider.js';

// ── Events ──────────────────────────────────────────────────────────────────────────────────────
export type SecondFactorEnrolmentStarted = {
  type: 'SecondFactorEnrolmentStarted';
  data: { userId: string; enrolmentId: string; method: 'totp'; recoveryCodeHashes: string[]; startedAt: string };
};
export type SecondFactorEnrolled = {
  type: 'SecondFactorEnrolled';
  data: { userId: string; enrolmentId: string; method: 'totp'; enrolledAt: string };
};
export type SecondFactorRemoved = {
  type: 'SecondFactorRemoved';
  data: { userId: string; enrolmentId: string; removedBy: string; removedAt: string };
};
export type RecoveryCodeUsed = {
  type: 'RecoveryCodeUsed';
  data: { userId: string; enrolmentId: string; codeHash: string; remaining: number; usedAt: string };
};

export type SecondFactorEvent = SecondFactorEnrolmentStarted | SecondFactorEnrolled | SecondFactorRemoved | RecoveryCodeUsed;

// ── Commands ────────────────────────────────────────────────────────────────────────────────────
export type SecondFactorCommand =
  | { type: 'StartSecondFactorEnrolment'; enrolmentId: string; recoveryCodeHashes: string[]; now: string }
  /** `codeValid`: the code matched the pending secret (checked outside: the secret is encrypted). */
  | { type: 'ConfirmSecondFactor'; enrolmentId: string; codeValid: boolean; now: string }
  | { type: 'UseRecoveryCode'; codeHash: string; now: string }
  /** `proofValid`: password and a current code (or recovery code) were right. */
  | { type: 'RemoveSecondFactor'; proofValid: boolean; removedBy: string; now: string };

// ── State ───────────────────────────────────────────────────────────────────────────────────────
export interface SecondFactorState {
  exists: boolean;
  userId: string;
  status: 'none' | 'pending' | 'enabled';
  enrolmentId: string | null;
  /** Pending: the codes shown at enrolment; enabled: those not used yet. */
  recoveryCodeHashes: string[];
}

export const ALREADY_ENABLED = 'Two-factor authentication is already enabled. Turn it off first to set up a new authenticator.';
export const NOT_ENABLED = 'Two-factor authentication is not enabled for this account';
export const NO_PENDING_ENROLMENT = 'Start the two-factor setup first';
export const INVALID_CODE = 'The code is not valid. Enter the current 6-digit code from your authenticator app.';
export const INVALID_RECOVERY_CODE = 'This recovery code is not valid or has already been used';
export const INVALID_PROOF = 'The password or the code is not correct';

function decide(command: SecondFactorCommand, state: SecondFactorState) {
  if (!state.exists) return reject('user.not_found', 'User not found');
  const userId = state.userId;
  switch (command.type) {
    case 'StartSecondFactorEnrolment':
      if (state.status === 'enabled') return reject('mfa.already_enabled', ALREADY_ENABLED);
      return accept<SecondFactorEvent>({
        type: 'SecondFactorEnrolmentStarted',
        data: {
          userId,
          enrolmentId: command.enrolmentId,
          method: 'totp',
          recoveryCodeHashes: command.recoveryCodeHashes,
          startedAt: command.now,
        },
      });
    case 'ConfirmSecondFactor':
      if (state.status === 'enabled') return reject('mfa.already_enabled', ALREADY_ENABLED);
      if (state.status !== 'pending' || state.enrolmentId !== command.enrolmentId)
        return reject('mfa.no_pending_enrolment', NO_PENDING_ENROLMENT);
      if (!command.codeValid) return reject('mfa.enrolment_code_invalid', INVALID_CODE);
      return accept<SecondFactorEvent>({
        type: 'SecondFactorEnrolled',
        data: { userId, enrolmentId: command.enrolmentId, method: 'totp', enrolledAt: command.now },
      });
    case 'UseRecoveryCode': {
      if (state.status !== 'enabled' || !state.recoveryCodeHashes.includes(command.codeHash))
        return reject('mfa.invalid_code', INVALID_RECOVERY_CODE);
      const remaining = state.recoveryCodeHashes.length - 1;
      return accept<SecondFactorEvent>({
        type: 'RecoveryCodeUsed',
        data: { userId, enrolmentId: state.enrolmentId as string, codeHash: command.codeHash, remaining, usedAt: command.now },
      });
    }
    case 'RemoveSecondFactor':
      if (state.status !== 'enabled') return reject('mfa.not_enabled', NOT_ENABLED);
      if (!command.proofValid) return reject('mfa.invalid_code', INVALID_PROOF);
      return accept<SecondFactorEvent>({
        type: 'SecondFactorRemoved',
        data: { userId, enrolmentId: state.enrolmentId as string, removedBy: command.removedBy, removedAt: command.now },
      });
  }
}

function evolve(state: SecondFactorState, event: SecondFactorEvent | UserEvent): SecondFactorState {
  switch (event.type) {
    case 'UserRegistered':
    case 'StaffJoined':
      // A staff account starts with its acceptance of the invitation.
      return { ...state, exists: true, userId: event.data.userId };
    case 'SecondFactorEnrolmentStarted':
      return { ...state, status: 'pending', enrolmentId: event.data.enrolmentId, recoveryCodeHashes: event.data.recoveryCodeHashes };
    case 'SecondFactorEnrolled':
      return { ...state, status: 'enabled' };
    case 'RecoveryCodeUsed':
      return { ...state, recoveryCodeHashes: state.recoveryCodeHashes.filter((h) => h !== event.data.codeHash) };
    case 'SecondFactorRemoved':
      return { ...state, status: 'none', enrolmentId: null, recoveryCodeHashes: [] };
    default:
      return state;
  }
}

export const secondFactorDecider: Decider<SecondFactorCommand, SecondFactorEvent, SecondFactorState> = {
  initialState: () => ({ exists: false, userId: '', status: 'none', enrolmentId: null, recoveryCodeHashes: [] }),
  decide,
  evolve: evolve as (state: SecondFactorState, event: SecondFactorEvent) => SecondFactorState,
};
