/** Hono's typed context variables shared by every route. */
export interface AuthInfo {
  userId: string;
  role: 'admin' | 'member';
}

export interface AppEnv {
  Variables: {
    requestId: string;
    auth: AuthInfo | undefined;
  };
}
