/** Hono's typed context variables shared by every route. */
export interface AuthInfo {
  userId: string;
  role: 'admin' | 'member';
  /** The refresh session the access token belongs to (see identity/sessions.ts). */
  sessionId?: string;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    auth: AuthInfo | undefined;
  };
}
