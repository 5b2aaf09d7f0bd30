/**
 * `/login`: e-mail and password, 'Sign In' ('Signing In...'), errors in a red banner; redirect by
 * approval and role. When the account has a second factor, a code step follows; an admin who must
 * enrol one first goes to the setup screen. 'Use a passkey' needs neither password nor code.
 */
import { Alert, Button, FormField, PasswordField, SecondFactorCodeForm } from '@members/ui';
import { type AuthResult, isMfaChallenge } from '@members/ui/api';
import { postLoginPath } from '@members/ui/format';
import { validateLogin } from '@members/ui/registration';
import { browserSupportsWebAuthn, startAuthentication } from '@simplewebauthn/browser';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api, session } from '../app/api';
import { identityKeys } from '../app/queries';
import { useSite } from '../app/site';

export default function Login() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const navigate = useNavigate();
  const site = useSite();
  const qc = useQueryClient();

  function signedIn({ token, user, mfaEnrollmentRequired }: AuthResult) {
    session.set(token, user);
    qc.removeQueries({ queryKey: identityKeys.profile });
    navigate(mfaEnrollmentRequired ? '/account/two-factor' : postLoginPath(user, site.adminEmail), { replace: true });
  }

  /** A passkey instead of the password (and of the code: a passkey with user verification is both factors). */
  async function passkey() {
    setBusy(true);
    setError(null);
    try {
      const { ceremonyId, options } = await api.startPasskeyLogin();
      const credential = await startAuthentication({
        optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'],
      });
      signedIn(await api.passkeyLogin(ceremonyId, credential));
    } catch (err) {
      const name = (err as { name?: string }).name;
      setError(
        name === 'NotAllowedError' || name === 'AbortError'
          ? 'The passkey prompt was cancelled or timed out.'
          : (err as Error).message || 'Login failed. Please try again.',
      );
    } finally {
      setBusy(false);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = validateLogin(email, password);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const answer = await api.login(email.trim(), password);
      if (isMfaChallenge(answer)) setMfaToken(answer.mfaToken);
      else signedIn(answer);
    } catch (err) {
      console.error('Login failed', err);
      setError((err as Error).message || 'Login failed. Please try again.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Member Login</h1>
        <p className="notice-18">18+ ONLY, Adult Content, Age Verification Required</p>
        {mfaToken ? (
          <SecondFactorCodeForm
            onSubmit={async (code) => signedIn(await api.verifyMfa(mfaToken, code))}
            onCancel={() => {
              setMfaToken(null);
              setPassword('');
            }}
          />
        ) : (
          <form onSubmit={submit} noValidate>
            {error && <Alert>{error}</Alert>}
            <FormField
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              required
            />
            <PasswordField
              label="Password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
            <Button type="submit" block busy={busy} busyLabel="Signing In...">
              Sign In
            </Button>
            {browserSupportsWebAuthn() && (
              <Button type="button" variant="secondary" block disabled={busy} onClick={() => void passkey()}>
                Use a passkey
              </Button>
            )}
          </form>
        )}
        <div className="auth-links">
          <Link to="/auth/forgot-password">Forgot your password?</Link>
          <span>
            New here? <Link to="/register">Create Account</Link>
          </span>
        </div>
      </div>
    </div>
  );
}
