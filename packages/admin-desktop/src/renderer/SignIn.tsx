/**
 * Sign-in to a server (URL remembered by the main process); admins only, others see Access Denied.
 * An account with a second factor gets the code step after the password.
 */
import { AdminAccessDenied, Alert, Button, FormField, PasswordField, SecondFactorCodeForm } from '@members/ui';
import { type FormEvent, useState } from 'react';
import type { DesktopApi, SessionUser, SignInResult } from '../shared/ipc.js';

export function SignIn({
  desktop,
  serverUrl,
  onSignedIn,
}: {
  desktop: DesktopApi;
  serverUrl: string | null;
  onSignedIn: (u: SessionUser) => void;
}) {
  const [server, setServer] = useState(serverUrl ?? 'http://127.0.0.1:8080');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [codeStep, setCodeStep] = useState(false);
  const [denied, setDenied] = useState<Extract<SignInResult, { ok: false }>['accessDenied'] | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await desktop.session.signIn({ serverUrl: server.trim(), email: email.trim(), password });
      if (result.ok) onSignedIn(result.user);
      else if (result.mfaRequired) setCodeStep(true);
      else if (result.accessDenied) setDenied(result.accessDenied);
      else setError(result.error || 'Login failed');
    } catch (err) {
      setError((err as Error).message || 'Login failed. Please try again.');
    } finally {
      setBusy(false);
    }
  }

  if (denied) {
    return (
      <main className="signin">
        <AdminAccessDenied email={denied.email} role={denied.role} />
        <Button variant="secondary" onClick={() => setDenied(null)}>
          Sign in with another account
        </Button>
      </main>
    );
  }

  if (codeStep) {
    return (
      <main className="signin">
        <div className="card signin-card">
          <h1>Members Admin</h1>
          <SecondFactorCodeForm
            onSubmit={async (code) => {
              const result = await desktop.session.verifyCode({ code });
              if (result.ok) onSignedIn(result.user);
              else if (result.accessDenied) setDenied(result.accessDenied);
              else throw new Error(result.error || 'The code is not valid');
            }}
            onCancel={() => {
              setCodeStep(false);
              setPassword('');
            }}
          />
        </div>
      </main>
    );
  }

  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit} aria-label="Admin sign-in">
        <h1>Members Admin</h1>
        <p className="muted">Sign in with an admin account.</p>
        {error && <Alert>{error}</Alert>}
        <FormField label="Server URL" id="server-url" type="url" required value={server} onChange={(e) => setServer(e.target.value)} />
        <FormField
          label="Email"
          id="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <PasswordField
          label="Password"
          id="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <Button type="submit" block busy={busy} busyLabel="Signing In...">
          Sign In
        </Button>
      </form>
    </main>
  );
}
