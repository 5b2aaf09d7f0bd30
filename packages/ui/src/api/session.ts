/**
 * The browser session of spec §4: the access token and the user under the `authToken` and `user`
 * keys, restored on load with no server check. Subscribers hear every change (login, refresh, logout).
 */
import type { User } from './types';

export const STORAGE_KEYS = { authToken: 'authToken', user: 'user', ageVerified: 'ageVerified', geoLocation: 'geoLocation' } as const;

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

function readUser(raw: string | null): User | null {
  if (!raw) return null;
  try {
    const u = JSON.parse(raw);
    return u && typeof u === 'object' ? (u as User) : null;
  } catch {
    return null;
  }
}

/** A session kept in `storage` (localStorage by default; an in-memory state when there is none). */
export function createSessionStore(storage?: Storage): SessionStore {
  const store = safeStorage(storage);
  const listeners = new Set<() => void>();
  let state: SessionState = {
    token: store?.getItem(STORAGE_KEYS.authToken) ?? null,
    user: readUser(store?.getItem(STORAGE_KEYS.user) ?? null),
  };
  if (!state.token) state = { token: null, user: null };

  function emit(next: SessionState) {
    state = next;
    for (const l of listeners) l();
  }

  return {
    get: () => state,
    set(token, user) {
      const nextUser = user === undefined ? state.user : user;
      store?.setItem(STORAGE_KEYS.authToken, token);
      if (nextUser) store?.setItem(STORAGE_KEYS.user, JSON.stringify(nextUser));
      else store?.removeItem(STORAGE_KEYS.user);
      emit({ token, user: nextUser });
    },
    setUser(user) {
      store?.setItem(STORAGE_KEYS.user, JSON.stringify(user));
      emit({ ...state, user });
    },
    clear() {
      store?.removeItem(STORAGE_KEYS.authToken);
      store?.removeItem(STORAGE_KEYS.user);
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
