/**
 * `/auth/confirm-email?token=`: the link mailed to a new address from the account settings. Opening
 * it completes the change (no sign-in needed: the link is the proof, and it may open on another device).
 */
import { Alert, Spinner } from '@members/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../../app/api';
import { identityKeys } from '../../app/queries';
import { storeUserChange, useSession } from '../../app/session';

export default function ConfirmEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { loggedIn } = useSession();
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: identityKeys.confirmEmailChange(token),
    queryFn: async () => {
      const done = await api.confirmEmailChange(token);
      // Keep the signed-in browser's stored user in step with the new address (this page load's own
      // profile check, answered before the change, must not bring the old one back).
      await storeUserChange(qc, (user) => ({ ...user, email: done.email }));
      return done;
    },
    enabled: Boolean(token),
    retry: false,
    gcTime: 0,
  });
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Confirm your new email</h1>
        {!token ? (
          <Alert>This confirmation link is incomplete.</Alert>
        ) : q.isPending ? (
          <Spinner label="Confirming your new email..." />
        ) : q.isError ? (
          <Alert>{(q.error as Error).message || 'This email change link is invalid or has already been used'}</Alert>
        ) : (
          <Alert tone="success">{q.data.message}</Alert>
        )}
        <Link className="btn btn-primary" to={loggedIn ? '/account' : '/login'}>
          {loggedIn ? 'Back to Account settings' : 'Go to Login'}
        </Link>
      </div>
    </div>
  );
}
