/** Given these events, when this command, then these events (or this error). */
import { describe, it } from 'vitest';
import { deciderSpec, thenError, thenEvents } from '../shared/decider.testkit.js';
import {
  MAX_PASSKEYS,
  PASSKEY_ALREADY_REGISTERED,
  PASSKEY_NOT_FOUND,
  PASSKEY_NOT_VERIFIED,
  type PasskeyCommand,
  type PasskeyEvent,
  passkeyDecider,
  TOO_MANY_PASSKEYS,
} from './passkey.decider.js';
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
    role: 'member',
    registeredAt: NOW,
  },
};
const erased = { type: 'MemberErased', data: { userId: 'u1', erasedAt: NOW } } as unknown as UserEvent;

const register = (passkeyId = 'k1', verified = true): PasskeyCommand => ({
  type: 'RegisterPasskey',
  passkeyId,
  name: 'Phone',
  publicKey: 'pk',
  counter: 0,
  transports: ['internal'],
  verified,
  now: NOW,
});
const added = (passkeyId = 'k1', counter = 0): PasskeyEvent => ({
  type: 'PasskeyRegistered',
  data: { userId: 'u1', passkeyId, name: 'Phone', publicKey: 'pk', counter, transports: ['internal'], registeredAt: NOW },
});
const use = (counter: number, verified = true, passkeyId = 'k1'): PasskeyCommand => ({
  type: 'UsePasskey',
  passkeyId,
  counter,
  verified,
  now: NOW,
});
const used = (counter: number): PasskeyEvent => ({ type: 'PasskeyUsed', data: { userId: 'u1', passkeyId: 'k1', counter, usedAt: NOW } });
const remove = (passkeyId = 'k1'): PasskeyCommand => ({ type: 'RemovePasskey', passkeyId, removedBy: 'u1', now: NOW });
const removed: PasskeyEvent = { type: 'PasskeyRemoved', data: { userId: 'u1', passkeyId: 'k1', removedBy: 'u1', removedAt: NOW } };

const { given } = deciderSpec(passkeyDecider);

describe('passkey decider', () => {
  it('registers a verified passkey; refuses an unverified one, a duplicate, and one past the limit', () => {
    thenEvents(given([registered]).when(register()), [added()]);
    thenError(given([registered]).when(register('k1', false)), 'passkey.not_verified', PASSKEY_NOT_VERIFIED);
    thenError(given([registered, added()]).when(register()), 'passkey.already_registered', PASSKEY_ALREADY_REGISTERED);
    const full = Array.from({ length: MAX_PASSKEYS }, (_, i) => added(`k${i}`));
    thenError(given([registered, ...full]).when(register('one-more')), 'passkey.limit', TOO_MANY_PASSKEYS);
    thenError(given([]).when(register()), 'user.not_found');
  });

  it('a staff account, whose stream starts when it accepts its invitation, registers a passkey too', () => {
    const joined = {
      type: 'StaffJoined',
      data: {
        userId: 'u1',
        invitationId: 'i1',
        email: 'sam@example.test',
        displayName: 'Sam',
        passwordHash: 'h',
        staffRole: 'support',
        invitedBy: 'owner',
        joinedAt: NOW,
      },
    } as UserEvent;
    thenEvents(given([joined]).when(register()), [added()]);
  });

  it('records a verified use; refuses an unverified one, an unknown or removed passkey', () => {
    thenEvents(given([registered, added()]).when(use(0)), [used(0)]);
    thenError(given([registered, added()]).when(use(0, false)), 'passkey.not_verified');
    thenError(given([registered, added()]).when(use(0, true, 'k2')), 'passkey.not_verified');
    thenError(given([registered, added(), removed]).when(use(0)), 'passkey.not_verified');
  });

  it('a counter that does not grow, once the authenticator keeps one, is a cloned credential', () => {
    thenEvents(given([registered, added()]).when(use(1)), [used(1)]);
    thenEvents(given([registered, added(), used(1)]).when(use(2)), [used(2)]);
    thenError(given([registered, added(), used(5)]).when(use(5)), 'passkey.not_verified');
    thenError(given([registered, added(), used(5)]).when(use(3)), 'passkey.not_verified');
    // Passkeys of platforms that keep no counter report 0 every time.
    thenEvents(given([registered, added(), used(0)]).when(use(0)), [used(0)]);
  });

  it('removes one of the account’s passkeys; an unknown one is not found; an erasure drops them all', () => {
    thenEvents(given([registered, added()]).when(remove()), [removed]);
    thenError(given([registered, added()]).when(remove('k2')), 'passkey.not_found', PASSKEY_NOT_FOUND);
    thenError(given([registered, added(), removed]).when(remove()), 'passkey.not_found');
    thenError(given([registered, added(), erased]).when(use(0)), 'passkey.not_verified');
  });
});
