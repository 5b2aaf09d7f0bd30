/**
 * The accounts behind the routes layer's guards: identity's read model answers the `Authenticator`
 * port of `http/auth.ts`, which the app wiring passes to `authenticate`.
 */
import type { Queryable } from '../db/types.js';
import type { Authenticator } from '../http/auth.js';
import type { Clock } from '../shared/clock.js';
import { adminLacksSecondFactor } from './secondFactors.js';
import { type SessionLifetimes, sessionEnded } from './sessions.js';
import { findMemberStanding } from './users.queries.js';

export function accountsAuthenticator(db: Queryable, clock: Clock, lifetimes: Pick<SessionLifetimes, 'absoluteMs'>): Authenticator {
  return {
    standing: (userId) => findMemberStanding(db, userId),
    sessionEnded: (sessionId) => sessionEnded(db, sessionId, clock.now(), lifetimes),
    adminLacksSecondFactor: (userId) => adminLacksSecondFactor(db, userId),
  };
}
