/**
 * An account's passkeys (WebAuthn credentials, issue 42), decided on the account's own stream
 * (`user-{userId}`) beside its second factor: registered (the credential's id, its public key, its
 * signature counter, a name the holder chose), used at a sign-in (the counter it reported), removed.
 * Pure: whether the browser's answer verified is checked outside (passkeys.service.ts, with
 * @simplewebauthn/server) and arrives in the command. The name and the public key are personal data
 * (shredding/personalData.ts seals them), so an erasure leaves nothing readable of them.
 */
import { accept, type Decider, reject } from '../shared/decider.js';
import type { UserEvent } from './user.decider.js';

// ── Events ──────────────────────────────────────────────────────────────────────────────────────
export type PasskeyRegistered = {
  type: 'PasskeyRegistered';
  data: {
    userId: string;
    /** The credential id (base64url), as the authenticator names it. */
    passkeyId: string;
    name: string;
    /** The COSE public key (base64url). */
    publicKey: string;
    counter: number;
    transports: string[];
    registeredAt: string;
  };
};
export type PasskeyUsed = {
  type: 'PasskeyUsed';
  data: { userId: string; passkeyId: string; counter: number; usedAt: string };
};
export type PasskeyRemoved = {
  type: 'PasskeyRemoved';
  data: { userId: string; passkeyId: string; removedBy: string; removedAt: string };
};

export type PasskeyEvent = PasskeyRegistered | PasskeyUsed | PasskeyRemoved;

// ── Commands ────────────────────────────────────────────────────────────────────────────────────
export type PasskeyCommand =
  | {
      type: 'RegisterPasskey';
      passkeyId: string;
      name: string;
      publicKey: string;
      counter: number;
      transports: string[];
      /** The attestation verified against this account's pending challenge (checked outside). */
      verified: boolean;
      now: string;
    }
  /** `verified`: the assertion's signature verified with the stored public key (checked outside). */
  | { type: 'UsePasskey'; passkeyId: string; counter: number; verified: boolean; now: string }
  | { type: 'RemovePasskey'; passkeyId: string; removedBy: string; now: string };

// ── State ───────────────────────────────────────────────────────────────────────────────────────
export interface PasskeyState {
  exists: boolean;
  userId: string;
  /** passkeyId → last counter seen. */
  passkeys: Record<string, number>;
}

/** More is a mistake or an abuse: a person has a few devices. */
export const MAX_PASSKEYS = 10;

export const PASSKEY_NOT_VERIFIED = 'The passkey could not be verified. Please try again.';
export const PASSKEY_ALREADY_REGISTERED = 'This passkey is already registered.';
export const PASSKEY_NOT_FOUND = 'Passkey not found';
export const TOO_MANY_PASSKEYS = `An account can have at most ${MAX_PASSKEYS} passkeys. Remove one first.`;

function decide(command: PasskeyCommand, state: PasskeyState) {
  if (!state.exists) return reject('user.not_found', 'User not found');
  const userId = state.userId;
  switch (command.type) {
    case 'RegisterPasskey':
      if (!command.verified) return reject('passkey.not_verified', PASSKEY_NOT_VERIFIED);
      if (command.passkeyId in state.passkeys) return reject('passkey.already_registered', PASSKEY_ALREADY_REGISTERED);
      if (Object.keys(state.passkeys).length >= MAX_PASSKEYS) return reject('passkey.limit', TOO_MANY_PASSKEYS);
      return accept<PasskeyEvent>({
        type: 'PasskeyRegistered',
        data: {
          userId,
          passkeyId: command.passkeyId,
          name: command.name,
          publicKey: command.publicKey,
          counter: command.counter,
          transports: command.transports,
          registeredAt: command.now,
        },
      });
    case 'UsePasskey': {
      const last = state.passkeys[command.passkeyId];
      if (last === undefined || !command.verified) return reject('passkey.not_verified', PASSKEY_NOT_VERIFIED);
      // A counter that does not grow (when the authenticator keeps one) means a cloned credential.
      if ((last > 0 || command.counter > 0) && command.counter <= last) return reject('passkey.not_verified', PASSKEY_NOT_VERIFIED);
      return accept<PasskeyEvent>({
        type: 'PasskeyUsed',
        data: { userId, passkeyId: command.passkeyId, counter: command.counter, usedAt: command.now },
      });
    }
    case 'RemovePasskey':
      if (!(command.passkeyId in state.passkeys)) return reject('passkey.not_found', PASSKEY_NOT_FOUND);
      return accept<PasskeyEvent>({
        type: 'PasskeyRemoved',
        data: { userId, passkeyId: command.passkeyId, removedBy: command.removedBy, removedAt: command.now },
      });
  }
}

function evolve(state: PasskeyState, event: PasskeyEvent | UserEvent): PasskeyState {
  switch (event.type) {
    case 'UserRegistered':
    case 'StaffJoined':
      // A staff account starts with its acceptance of the invitation (issue 42).
      return { ...state, exists: true, userId: event.data.userId };
    case 'PasskeyRegistered':
    case 'PasskeyUsed':
      return { ...state, passkeys: { ...state.passkeys, [event.data.passkeyId]: event.data.counter } };
    case 'PasskeyRemoved': {
      const { [event.data.passkeyId]: _removed, ...rest } = state.passkeys;
      return { ...state, passkeys: rest };
    }
    case 'MemberErased':
      return { ...state, passkeys: {} };
    default:
      return state;
  }
}

export const passkeyDecider: Decider<PasskeyCommand, PasskeyEvent, PasskeyState> = {
  initialState: () => ({ exists: false, userId: '', passkeys: {} }),
  decide,
  evolve: evolve as (state: PasskeyState, event: PasskeyEvent) => PasskeyState,
};
