/** Account settings: change the password (every other device is signed out) and the e-mail address (confirmed from the new mailbox). */
import { Button, FormField, PasswordField } from '@members/ui';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../app/api';
import { identityKeys } from '../../app/queries';
import { storeUserChange } from '../../app/session';
import { errorText, type Notice, NoticeLine, Section } from './accountParts';

export function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [notice, setNotice] = useState<Notice>(null);
  const qc = useQueryClient();
  const change = useMutation({
    mutationFn: () => api.changePassword(current, next),
    onSuccess: async (r) => {
      setCurrent('');
      setNext('');
      setConfirm('');
      setNotice({ tone: 'success', text: r.message });
      await qc.invalidateQueries({ queryKey: identityKeys.sessions });
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Could not change the password') }),
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    if (next.length < 8) return setNotice({ tone: 'error', text: 'Password must be at least 8 characters long' });
    if (next !== confirm) return setNotice({ tone: 'error', text: 'Passwords do not match' });
    change.mutate();
  }
  return (
    <Section title="Change password" testId="change-password">
      <form onSubmit={submit} className="form-stack">
        <NoticeLine notice={notice} />
        <PasswordField
          label="Current password"
          name="currentPassword"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          required
        />
        <PasswordField
          label="New password"
          name="newPassword"
          autoComplete="new-password"
          value={next}
          onChange={(e) => setNext(e.target.value)}
          required
        />
        <PasswordField
          label="Confirm new password"
          name="confirmNewPassword"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          required
        />
        <p className="muted">Every other device signed in to your account will be signed out.</p>
        <Button type="submit" busy={change.isPending} busyLabel="Changing...">
          Change password
        </Button>
      </form>
    </Section>
  );
}

export function ChangeEmail({ email }: { email: string }) {
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [notice, setNotice] = useState<Notice>(null);
  const change = useMutation({
    mutationFn: () => api.requestEmailChange(password, newEmail.trim()),
    onSuccess: (r) => {
      setPassword('');
      setNewEmail('');
      setNotice({ tone: 'success', text: r.message });
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Could not change the email address') }),
  });
  return (
    <Section title="Change email" testId="change-email">
      <form
        className="form-stack"
        onSubmit={(e) => {
          e.preventDefault();
          change.mutate();
        }}
      >
        <NoticeLine notice={notice} />
        <p>
          Your email address: <strong data-testid="current-email">{email}</strong>
        </p>
        <FormField
          label="New email address"
          name="newEmail"
          type="email"
          autoComplete="email"
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
          required
        />
        <PasswordField
          label="Password"
          name="emailPassword"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        <p className="muted">
          We send a confirmation link to the new address. Your address changes when you open it; the old address is told.
        </p>
        <Button type="submit" busy={change.isPending} busyLabel="Sending...">
          Send confirmation link
        </Button>
      </form>
    </Section>
  );
}

/** The name on the account (the only profile fields a member edits; the e-mail has its own confirmed change). */
export function ChangeName({ firstName, lastName }: { firstName: string; lastName: string }) {
  const [first, setFirst] = useState(firstName);
  const [last, setLast] = useState(lastName);
  const [notice, setNotice] = useState<Notice>(null);
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: () => api.updateProfile({ firstName: first.trim(), lastName: last.trim() }),
    onSuccess: async () => {
      await storeUserChange(qc, (user) => ({ ...user, firstName: first.trim(), lastName: last.trim() }));
      setNotice({ tone: 'success', text: 'Your name has been saved.' });
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Could not save your name') }),
  });
  return (
    <Section title="Your name" testId="change-name">
      <form
        className="form-stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (!first.trim() || !last.trim()) return setNotice({ tone: 'error', text: 'All fields are required' });
          save.mutate();
        }}
      >
        <NoticeLine notice={notice} />
        <FormField label="First name" name="firstName" autoComplete="given-name" value={first} onChange={(e) => setFirst(e.target.value)} />
        <FormField label="Last name" name="lastName" autoComplete="family-name" value={last} onChange={(e) => setLast(e.target.value)} />
        <Button type="submit" busy={save.isPending} busyLabel="Saving...">
          Save name
        </Button>
      </form>
    </Section>
  );
}
