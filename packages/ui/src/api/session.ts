/**
 * The browser session: the access token and the signed-in user, in this page's memory only (issue 42;
 * spec §4's `authToken` and `user` storage keys are a recorded departure, docs/spec-departures.md).
 * A script injected into the page cannot lift a token from storage, and nothing personal outlives
 * the tab. A reload restores the session through the httpOnly refresh cookie (the client's
 * `refreshSession`, which the web app calls before its first render). Subscribers hear every change
 * (login, refresh, logout).
 */
import type { User } from './types';

export const STORAGE_KEYS = { ageVerified: 'ageVerified', geoLocation: 'geoLocation' } as const;

/** The keys earlier versions kept the session under: removed from storage wherever they are still found. */
export const LEGACY_SESSION_KEYS = ['authToken', 'user'] as const;

export interface SessionState {
  token: string | null;
  user: User | null;
}

export interface SessionStore {
  get(): SessionState;
  set(token: string, user?: User | null): void;
  setUser(user: User): void;
  clear(): void;
  subscribe(listener: () => void): () => void;
}

function safeStorage(storage?: Storage): Storage | undefined {
  try {
    return storage ?? (typeof localStorage === 'undefined' ? undefined : localStorage);
  } catch {
    return undefined;
  }
}

/**
 * A session kept in memory. `legacy` (localStorage by default) is only cleaned: the token and user a
 * browser stored under an earlier version are removed from it, never read.
 */
export function createSessionStore(legacy?: Storage): SessionStore {
  const store = safeStorage(legacy);
  try {
    for (const key of LEGACY_SESSION_KEYS) store?.removeItem(key);
  } catch {
    // storage disabled: there is nothing to clean
  }
  const listeners = new Set<() => void>();
  let state: SessionState = { token: null, user: null };

  function emit(next: SessionState) {
    state = next;
    for (const l of listeners) l();
  }

  return {
    get: () => state,
    set(token, user) {
      emit({ token, user: user === undefined ? state.user : user });
    },
    setUser(user) {
      emit({ ...state, user });
    },
    clear() {
      if (state.token || state.user) emit({ token: null, user: null });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Seconds-since-epoch expiry of a JWT, or undefined when it is not a readable JWT. */
export function tokenExpiry(token: string): number | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const json = atob(
      part
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(part.length / 4) * 4, '='),
    );
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}
