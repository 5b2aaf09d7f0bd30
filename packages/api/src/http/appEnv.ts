/** Hono's typed context variables shared by every route. */
export interface AuthInfo {
  userId: string;
  role: 'admin' | 'member';
  /** The refresh session the access token belongs to (see identity/sessions.ts). */
  sessionId?: string;
  /**
   * An admin REQUIRE_ADMIN_2FA holds to the enrolment routes (no enabled second factor yet), on one
   * of those routes (http/auth.ts `authenticate`): not recognized as an admin there.
   */
  enrolmentRequired?: true;
}

/** The account as the read model has it now: what the access guards decide on (http/auth.ts). */
export interface AccountStanding {
  id: string;
  email: string;
  role: 'admin' | 'member';
  status: 'pending' | 'approved' | 'rejected' | 'suspended';
  approved: number;
  membership_status: string;
  subscription_status: string | null;
  /** An admin's staff role (issue 42); null for a member and for an admin who predates staff roles (an owner). */
  staff_role: string | null;
}

/**
 * The port the guards read accounts through. The accounts area provides it (identity's
 * `accountsAuthenticator`) and the app wiring hands it to `authenticate`, so the routes layer knows
 * no domain area.
 */
export interface Authenticator {
  /** The account's standing now; none for an unknown or erased account. */
  standing(userId: string): Promise<AccountStanding | undefined>;
  /** The refresh session was revoked (logout, "sign out other devices", password change) or never existed. */
  sessionEnded(sessionId: string): Promise<boolean>;
  /** An admin without an enabled second factor (REQUIRE_ADMIN_2FA holds them to the enrolment routes). */
  adminLacksSecondFactor(userId: string): Promise<boolean>;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    auth: AuthInfo | undefined;
    /** The caller's account as the route's `access` admitted it (http/openapi.ts); read with `userOf(c)`. */
    user: AccountStanding | undefined;
    /**
     * What the route's credential granted (a signed URL's grant, a runner's token name), set by
     * `describe` (http/openapi.ts) before the handler; typed per route by its `access`.
     */
    grant: unknown;
    /** The accounts port `authenticate` was given, for the access checks. */
    accounts: Authenticator | undefined;
  };
}
