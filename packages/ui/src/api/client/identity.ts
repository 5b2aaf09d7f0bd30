/** Identity and account calls: sign-in, second factor, registration, profile, password, sessions, data export, deletion. */
import type {
  AccountSession,
  ApprovalStatus,
  AuthResult,
  DeleteAccountPayload,
  EmailVerified,
  LoginResult,
  MessageAnswer,
  NotificationSettings,
  Passkey,
  PasskeyCeremony,
  RegistrationAnswer,
  RegistrationPayload,
  SecondFactorEnrolment,
  SecondFactorStatus,
  User,
} from '../types';
import type { createDownload } from './download';
import { type Calls, noRedirect } from './session';

/** What ending other sessions is confirmed with: the password, or a passkey's answer to a re-authentication ceremony. */
export type IdentityProof = { password: string } | { passkey: { ceremonyId: string; credential: unknown } };

export function identityCalls({ get, post, request }: Calls, download: ReturnType<typeof createDownload>) {
  return {
    /** A session, or `{ mfaRequired, mfaToken }` when a second factor is due (then call `verifyMfa`). */
    login: (email: string, password: string) =>
      post<LoginResult>('/auth/login', { email, password }, { ...noRedirect, fallbackError: 'Login failed' }),
    verifyMfa: (mfaToken: string, code: string) =>
      post<AuthResult>('/auth/mfa/verify', { mfaToken, code }, { ...noRedirect, fallbackError: 'Verification failed' }),
    mfaStatus: () => get<SecondFactorStatus>('/auth/mfa'),
    startMfaEnrolment: () => post<SecondFactorEnrolment>('/auth/mfa/enroll', undefined, { fallbackError: 'Could not start the setup' }),
    confirmMfaEnrolment: (code: string) =>
      post<SecondFactorStatus>('/auth/mfa/enroll/confirm', { code }, { redirectOn403: false, fallbackError: 'Could not confirm the code' }),
    disableMfa: (password: string, code: string) =>
      post<SecondFactorStatus>('/auth/mfa/disable', { password, code }, { ...noRedirect, fallbackError: 'Could not turn it off' }),
    // passkeys (issue 42): the WebAuthn call between the two steps is the browser's (@simplewebauthn/browser)
    passkeys: async (): Promise<Passkey[]> => (await get<{ passkeys: Passkey[] }>('/auth/passkeys')).passkeys,
    startPasskeyRegistration: () =>
      post<PasskeyCeremony>('/auth/passkeys/registration', undefined, { fallbackError: 'Could not start adding a passkey' }),
    addPasskey: async (ceremonyId: string, name: string, credential: unknown): Promise<Passkey> =>
      (
        await post<{ passkey: Passkey }>(
          '/auth/passkeys',
          { ceremonyId, name, credential },
          { redirectOn401: false, fallbackError: 'Could not add the passkey' },
        )
      ).passkey,
    removePasskey: (id: string) =>
      request<{ removed: true }>('DELETE', `/auth/passkeys/${encodeURIComponent(id)}`, { fallbackError: 'Could not remove the passkey' }),
    startPasskeyLogin: () =>
      post<PasskeyCeremony>('/auth/passkeys/login/options', undefined, { ...noRedirect, fallbackError: 'Login failed' }),
    passkeyLogin: (ceremonyId: string, credential: unknown) =>
      post<AuthResult>('/auth/passkeys/login', { ceremonyId, credential }, { ...noRedirect, fallbackError: 'Login failed' }),
    register: (payload: RegistrationPayload) =>
      post<RegistrationAnswer>('/auth/register', payload, { ...noRedirect, fallbackError: 'Registration failed' }),
    logout: () => post<{ loggedOut: true }>('/auth/logout', undefined, noRedirect),
    requestPasswordReset: (email: string) => post<MessageAnswer>('/auth/reset-password', { email }, noRedirect),
    confirmPasswordReset: (token: string, password: string) =>
      post<MessageAnswer>('/auth/reset-password/confirm', { token, password }, noRedirect),
    /** The creator's team (issue 42): the invitee chooses a password and the name the team sees. */
    acceptStaffInvitation: (token: string, password: string, displayName: string) =>
      post<MessageAnswer>('/auth/staff-invitations/accept', { token, password, displayName }, noRedirect),
    verifyEmail: (token: string) => post<EmailVerified>('/auth/verify-email', { token }, noRedirect),
    approvalStatus: () => get<ApprovalStatus>('/users/approval-status'),
    getProfile: async (): Promise<User> => (await get<{ user: User }>('/users/profile')).user,
    updateProfile: async (profile: Pick<Partial<User>, 'firstName' | 'lastName'>): Promise<User> =>
      (await request<{ user: User }>('PUT', '/users/profile', { body: profile })).user,

    // account settings (a wrong password is an answer here, not an expired session)
    changePassword: (currentPassword: string, newPassword: string) =>
      post<{ message: string; otherSessionsEnded: number }>(
        '/users/me/password',
        { currentPassword, newPassword },
        { redirectOn401: false, fallbackError: 'Could not change the password' },
      ),
    requestEmailChange: (password: string, newEmail: string) =>
      post<{ message: string; pendingEmail: string }>(
        '/users/me/email',
        { password, newEmail },
        { redirectOn401: false, fallbackError: 'Could not change the email address' },
      ),
    confirmEmailChange: (token: string) =>
      post<{ email: string; message: string }>(
        '/auth/email-change/confirm',
        { token },
        { ...noRedirect, fallbackError: 'Could not confirm' },
      ),
    sessions: async (): Promise<AccountSession[]> => (await get<{ sessions: AccountSession[] }>('/users/me/sessions')).sessions,
    /** Ending other sessions asks again who it is (issue 42): the password, or a passkey's answer to `startPasskeyReauthentication`. */
    revokeSession: (id: string, proof: IdentityProof) =>
      request<{ revoked: true }>('DELETE', `/users/me/sessions/${encodeURIComponent(id)}`, {
        body: proof,
        redirectOn401: false,
        fallbackError: 'Could not sign out that session',
      }),
    revokeOtherSessions: (proof: IdentityProof) =>
      request<{ revoked: number }>('DELETE', '/users/me/sessions', {
        body: proof,
        redirectOn401: false,
        fallbackError: 'Could not sign out',
      }),
    startPasskeyReauthentication: () =>
      post<PasskeyCeremony>('/auth/passkeys/reauthentication', undefined, { fallbackError: 'Could not start the passkey check' }),
    /** The member's mail settings (docs/chat.md: the mail when the team replies while they are offline). */
    notificationSettings: () => get<NotificationSettings>('/users/me/notifications'),
    setNotificationSettings: (settings: NotificationSettings) =>
      request<NotificationSettings>('PUT', '/users/me/notifications', { body: settings, fallbackError: 'Could not save the setting' }),
    /** The member's data: `json` (machine-readable, GDPR art. 20) or `html` (a readable summary). */
    exportMyData: (format: 'json' | 'html') =>
      download(
        '/users/me/export',
        { query: format === 'html' ? { format: 'html' } : {}, fallbackError: 'Could not download your data' },
        `my-data.${format}`,
      ),
    deleteAccount: (payload: DeleteAccountPayload) =>
      request<{ erased: boolean }>('DELETE', '/users/me', {
        body: payload,
        redirectOn401: false,
        redirectOn403: false,
        fallbackError: 'Could not delete the account',
      }),
  };
}
