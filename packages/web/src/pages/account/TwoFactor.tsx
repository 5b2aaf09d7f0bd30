/**
 * `/account/two-factor`: the optional second factor for members, and the setup an admin must finish
 * before anything else when the server requires it (the API answers 403 elsewhere until then).
 * Shows the state, the setup (QR code, manual key, recovery codes, confirming code) or the form
 * that turns it off (password and a code); without a TOTP factor, the passkeys too: a passkey is a
 * second factor of its own (issue 42), so an admin who must enrol may add one instead.
 */
import { Alert, Button, PasswordField, SecondFactorCodeForm, SecondFactorSetup, Spinner } from '@members/ui';
import { postLoginPath } from '@members/ui/format';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Navigate, useNavigate } from 'react-router-dom';
import { api } from '../../app/api';
import { identityKeys, queries } from '../../app/queries';
import { useSession } from '../../app/session';
import { useSite } from '../../app/site';
import { Passkeys } from './Passkeys';

export default function TwoFactor() {
  const { loggedIn, user } = useSession();
  const site = useSite();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const status = useQuery({ ...queries.identity.mfaStatus(), enabled: loggedIn, retry: false });
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useState<string | null>(null);

  if (!loggedIn) return <Navigate to="/login" replace />;
  if (status.isPending) return <Spinner label="Loading..." />;
  if (status.isError) return <Alert>{(status.error as Error).message}</Alert>;
  const s = status.data;

  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Two-factor authentication</h1>
        {notice && <Alert tone="success">{notice}</Alert>}
        {s.enabled ? (
          <>
            <p data-testid="mfa-enabled">
              Two-factor authentication is on. Recovery codes left: <strong>{s.recoveryCodesLeft}</strong>.
            </p>
            <h2>Turn it off</h2>
            <PasswordField
              label="Password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <SecondFactorCodeForm
              submitLabel="Turn off two-factor authentication"
              onSubmit={async (code) => {
                await api.disableMfa(password, code);
                setPassword('');
                setNotice('Two-factor authentication is off.');
                await qc.invalidateQueries({ queryKey: identityKeys.mfaStatus });
              }}
            />
          </>
        ) : (
          <SecondFactorSetup
            required={s.required}
            start={() => api.startMfaEnrolment()}
            confirm={(code) => api.confirmMfaEnrolment(code)}
            onEnabled={async () => {
              await qc.invalidateQueries();
              if (s.required && user) navigate(postLoginPath(user, site.adminEmail), { replace: true });
              else setNotice('Two-factor authentication is on.');
            }}
          />
        )}
        {!s.enabled && (
          <>
            <h2>Or use a passkey</h2>
            <Passkeys
              onAdded={() => {
                if (s.required && user) navigate(postLoginPath(user, site.adminEmail), { replace: true });
              }}
            />
          </>
        )}
        {!s.required && (
          <Button variant="ghost" onClick={() => navigate(-1)}>
            Back
          </Button>
        )}
      </div>
    </div>
  );
}
