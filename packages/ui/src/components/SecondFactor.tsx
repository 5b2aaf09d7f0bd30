/**
 * The second factor's screens, shared by the web app and the admin desktop: the code step of a
 * login, and the TOTP setup (QR code, manual key, the recovery codes shown once, the confirming
 * code). They take plain async callbacks, so each app wires its own transport.
 */
import { type FormEvent, useState } from 'react';
import type { SecondFactorEnrolment } from '../api/types';
import { Button } from './Button';
import { Alert } from './Feedback';
import { FormField } from './FormField';
import { QrCode } from './QrCode';

export interface SecondFactorCodeFormProps {
  /** Resolves when the code was accepted; a rejection's message is shown. */
  onSubmit: (code: string) => Promise<unknown>;
  onCancel?: () => void;
  /** Default 'Verify'. */
  submitLabel?: string;
}

/** 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.' */
export function SecondFactorCodeForm({ onSubmit, onCancel, submitLabel = 'Verify' }: SecondFactorCodeFormProps) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!code.trim()) {
      setError('Please enter the code');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(code.trim());
    } catch (err) {
      setError((err as Error).message || 'The code is not valid');
      setCode('');
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Two-factor authentication">
      <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      {error && <Alert>{error}</Alert>}
      <FormField
        label="Authentication code"
        name="code"
        autoComplete="one-time-code"
        inputMode="text"
        autoFocus
        value={code}
        onChange={(e) => setCode(e.target.value)}
        required
      />
      <Button type="submit" block busy={busy} busyLabel="Verifying...">
        {submitLabel}
      </Button>
      {onCancel && (
        <Button variant="ghost" block onClick={onCancel}>
          Back to sign in
        </Button>
      )}
    </form>
  );
}

export interface SecondFactorSetupProps {
  start: () => Promise<SecondFactorEnrolment>;
  confirm: (code: string) => Promise<unknown>;
  /** After a confirmed enrolment. */
  onEnabled: () => void;
  /** Shown above: the account must enrol before anything else. */
  required?: boolean;
}

/** Start → scan the QR code (or type the key) → keep the recovery codes → confirm with a code. */
export function SecondFactorSetup({ start, confirm, onEnabled, required }: SecondFactorSetupProps) {
  const [enrolment, setEnrolment] = useState<SecondFactorEnrolment | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function begin() {
    setBusy(true);
    setError(null);
    try {
      setEnrolment(await start());
    } catch (err) {
      setError((err as Error).message || 'Could not start the setup');
    } finally {
      setBusy(false);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await confirm(code.trim());
      onEnabled();
    } catch (err) {
      setError((err as Error).message || 'The code is not valid');
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="second-factor-setup" aria-label="Set up two-factor authentication">
      {required && <Alert tone="warning">Two-factor authentication is required for administrators. Set it up to continue.</Alert>}
      {error && <Alert>{error}</Alert>}
      {!enrolment ? (
        <>
          <p>Protect your account with a code from an authenticator app (for example Aegis, Google Authenticator or 1Password).</p>
          <Button onClick={begin} busy={busy} busyLabel="Starting...">
            Set up two-factor authentication
          </Button>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <ol className="second-factor-steps">
            <li>
              <p>Scan this QR code with your authenticator app:</p>
              <QrCode value={enrolment.otpauthUri} label="QR code for your authenticator app" size={200} testId="mfa-qr" />
              <p>
                Or enter this key by hand: <code data-testid="mfa-secret">{enrolment.secret}</code>
              </p>
            </li>
            <li>
              <p>Keep these recovery codes somewhere safe. Each works once if you lose your phone. They are shown only now.</p>
              <ul className="recovery-codes" data-testid="mfa-recovery-codes">
                {enrolment.recoveryCodes.map((c) => (
                  <li key={c}>
                    <code>{c}</code>
                  </li>
                ))}
              </ul>
            </li>
            <li>
              <FormField
                label="Enter the 6-digit code from the app"
                name="code"
                autoComplete="one-time-code"
                inputMode="numeric"
                value={code}
                onChange={(e) => setCode(e.target.value)}
                required
              />
            </li>
          </ol>
          <Button type="submit" busy={busy} busyLabel="Verifying...">
            Turn on two-factor authentication
          </Button>
        </form>
      )}
    </section>
  );
}
