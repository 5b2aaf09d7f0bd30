/**
 * `/auth/forgot-password`: asks for the e-mail to send a reset link to; opened from that link
 * (with `?token=`) it sets the new password.
 */
import { Alert, Button, FormField, PasswordField } from '@members/ui';
import { MIN_PASSWORD_LENGTH, passwordLength, REGISTRATION_MESSAGES } from '@members/ui/registration';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../../app/api';

function RequestReset() {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) {
      setError('Please enter a valid email address');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.requestPasswordReset(email.trim());
      setSent(true);
    } catch (err) {
      setError((err as Error).message || 'Failed to send reset link. Please try again.');
    } finally {
      setBusy(false);
    }
  }

  if (sent) {
    return (
      <Alert tone="success">
        If an account exists for {email.trim()}, we have sent a link to reset your password. Please check your inbox and spam folder.
      </Alert>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <p>Enter the email address of your account and we will send you a link to choose a new password.</p>
      {error && <Alert>{error}</Alert>}
      <FormField label="Email" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <Button type="submit" block busy={busy} busyLabel="Sending...">
        Send Reset Link
      </Button>
    </form>
  );
}

function SetNewPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (passwordLength(password) < MIN_PASSWORD_LENGTH) return setError(REGISTRATION_MESSAGES.passwordTooShort);
    if (password !== confirm) return setError('Passwords do not match');
    setBusy(true);
    setError(null);
    try {
      await api.confirmPasswordReset(token, password);
      setDone(true);
    } catch (err) {
      setError((err as Error).message || 'Failed to reset password. The link may have expired.');
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <>
        <Alert tone="success">Your password has been changed. You can now sign in.</Alert>
        <Link className="btn btn-primary" to="/login">
          Sign In
        </Link>
      </>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      {error && <Alert>{error}</Alert>}
      <PasswordField
        label="New Password"
        name="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <PasswordField
        label="Confirm New Password"
        name="confirmPassword"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <Button type="submit" block busy={busy} busyLabel="Saving...">
        Set New Password
      </Button>
    </form>
  );
}

export default function ForgotPassword() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>{token ? 'Choose a New Password' : 'Reset Your Password'}</h1>
        {token ? <SetNewPassword token={token} /> : <RequestReset />}
        <div className="auth-links">
          <Link to="/login">Back to Sign In</Link>
        </div>
      </div>
    </div>
  );
}
