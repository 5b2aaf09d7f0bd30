/**
 * `/auth/staff-invitation?token=…`: the link mailed to someone the owner invited to the team
 * (issue 42). They choose the name the team sees and a password; then they sign in and, where the
 * site asks admins for one, set up their second factor before anything else.
 */
import { Alert, Button, FormField, PasswordField } from '@members/ui';
import { MIN_PASSWORD_LENGTH, passwordLength, REGISTRATION_MESSAGES } from '@members/ui/registration';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api } from '../../app/api';

export default function StaffInvitation() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [displayName, setDisplayName] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!displayName.trim()) return setError('Please enter the name the team will see');
    if (passwordLength(password) < MIN_PASSWORD_LENGTH) return setError(REGISTRATION_MESSAGES.passwordTooShort);
    if (password !== confirm) return setError('Passwords do not match');
    setBusy(true);
    setError(null);
    try {
      setDone((await api.acceptStaffInvitation(token, password, displayName.trim())).message);
    } catch (err) {
      setError((err as Error).message || 'Failed to accept the invitation. The link may have expired.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="auth-page">
      <div className="card auth-card">
        <h1>Join the Team</h1>
        {!token ? (
          <Alert>This invitation link is incomplete. Please open the link from the invitation e-mail.</Alert>
        ) : done ? (
          <>
            <Alert tone="success">{done}</Alert>
            <Link className="btn btn-primary" to="/login">
              Sign In
            </Link>
          </>
        ) : (
          <form onSubmit={submit} noValidate>
            {error && <Alert>{error}</Alert>}
            <FormField
              label="Your name (shown to the team)"
              name="displayName"
              autoComplete="name"
              maxLength={80}
              value={displayName}
              onChange={(e) => setDisplayName(e.target.value)}
            />
            <PasswordField
              label="Password"
              name="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <PasswordField
              label="Confirm Password"
              name="confirmPassword"
              autoComplete="new-password"
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
            />
            <Button type="submit" block busy={busy} busyLabel="Saving...">
              Join the Team
            </Button>
          </form>
        )}
      </div>
    </div>
  );
}
