/** `/auth/verify-email?token=`: confirms the e-mail address from the link sent at registration. */
import { Alert, Spinner } from '@members/ui';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { queries } from '../../app/queries';

export default function VerifyEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const q = useQuery({
    ...queries.identity.verifyEmail(token),
    enabled: Boolean(token),
    retry: false,
    gcTime: 0,
  });
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Email Verification</h1>
        {!token ? (
          <Alert>This verification link is incomplete.</Alert>
        ) : q.isPending ? (
          <Spinner label="Verifying your email..." />
        ) : q.isError ? (
          <Alert>{(q.error as Error).message || 'This verification link is invalid or has expired.'}</Alert>
        ) : (
          <Alert tone="success">Your email address is verified. Thank you!</Alert>
        )}
        <Link className="btn btn-primary" to="/login">
          Go to Login
        </Link>
      </div>
    </div>
  );
}
