/** Identity and account queries: the keys and fetchers of the profile, approval, second factor, passkeys, sessions and email links. */
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../client';

export const identityKeys = {
  /** Every profile query (of any token): removed on sign-in, invalidated after a plan change. */
  profile: ['profile'] as const,
  profileOf: (token: string | null) => ['profile', token] as const,
  approvalStatus: ['approval-status'] as const,
  mfaStatus: ['mfa-status'] as const,
  sessions: ['account', 'sessions'] as const,
  passkeys: ['account', 'passkeys'] as const,
  verifyEmail: (token: string) => ['verify-email', token] as const,
  confirmEmailChange: (token: string) => ['confirm-email-change', token] as const,
};

export function identityQueries(api: ApiClient) {
  return {
    profile: (token: string | null) => queryOptions({ queryKey: identityKeys.profileOf(token), queryFn: () => api.getProfile() }),
    approvalStatus: () => queryOptions({ queryKey: identityKeys.approvalStatus, queryFn: () => api.approvalStatus() }),
    mfaStatus: () => queryOptions({ queryKey: identityKeys.mfaStatus, queryFn: () => api.mfaStatus() }),
    sessions: () => queryOptions({ queryKey: identityKeys.sessions, queryFn: () => api.sessions() }),
    passkeys: () => queryOptions({ queryKey: identityKeys.passkeys, queryFn: () => api.passkeys() }),
    verifyEmail: (token: string) => queryOptions({ queryKey: identityKeys.verifyEmail(token), queryFn: () => api.verifyEmail(token) }),
    confirmEmailChange: (token: string) =>
      queryOptions({ queryKey: identityKeys.confirmEmailChange(token), queryFn: () => api.confirmEmailChange(token) }),
  };
}
