/**
 * `/auth/confirm-email?token=`: the link mailed to a new address from the account settings. Opening
 * it completes the change (no sign-in needed: the link is the proof, and it may open on another device).
 */
import { Alert, Spinner } from '@members/ui';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { api, session } from '../../app/api';
import { identityKeys } from '../../app/queries';
import { useSession } from '../../app/session';

export default function ConfirmEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { loggedIn } = useSession();
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: identityKeys.confirmEmailChange(token),
    queryFn: async () => {
      const done = await api.confirmEmailChange(token);
      // This page load's own profile check (useProfileSync) may have been answered before the change
      // and arrive after it: merged into the stored user, it would bring the old address back. It is
      // cancelled, and asked again once the stored user holds the new address.
      await qc.cancelQueries({ queryKey: identityKeys.profile });
      const user = session.get().user;
      if (user) session.setUser({ ...user, email: done.email });
      void qc.invalidateQueries({ queryKey: identityKeys.profile });
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
