/** Account settings: "Download my data" (JSON and a readable HTML summary) and "Delete my account" (password, code when enabled, the typed confirmation). */
import { Alert, Button, FormField, PasswordField } from '@members/ui';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../app/api';
import { queries } from '../../app/queries';
import { errorText, Section } from './accountParts';

/** What the member types to confirm the deletion (the server checks the same string). */
export const DELETE_CONFIRMATION = 'DELETE';

/** Saves a file the API answered (the token is not a cookie, so a plain link cannot fetch it). */
function saveFile(blob: Blob, filename: string) {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

export function DownloadData() {
  const [error, setError] = useState<string | null>(null);
  const download = useMutation({
    mutationFn: (format: 'json' | 'html') => api.exportMyData(format),
    onSuccess: ({ blob, filename }) => {
      setError(null);
      saveFile(blob, filename);
    },
    onError: (err) => setError(errorText(err, 'Could not download your data')),
  });
  return (
    <Section title="Download my data" testId="download-data">
      <p>
        A copy of everything we store about you: your profile, approval history, payments with their transaction hashes, subscription
        periods and the videos you watched.
      </p>
      {error && <Alert>{error}</Alert>}
      <div className="row-actions">
        <Button variant="secondary" busy={download.isPending && download.variables === 'json'} onClick={() => download.mutate('json')}>
          Download my data (JSON)
        </Button>
        <Button variant="secondary" busy={download.isPending && download.variables === 'html'} onClick={() => download.mutate('html')}>
          Download a readable summary (HTML)
        </Button>
      </div>
    </Section>
  );
}

/**
 * `restricted`: a rejected member's session, which cannot read the second-factor state (the API
 * answers 403 there): the code field is offered as optional instead.
 */
export function DeleteAccount({ onDeleted, restricted = false }: { onDeleted(): void; restricted?: boolean }) {
  const status = useQuery({ ...queries.identity.mfaStatus(), retry: false, enabled: !restricted });
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [error, setError] = useState<string | null>(null);
  const needsCode = status.data?.enabled === true;
  const mayNeedCode = needsCode || restricted;
  const remove = useMutation({
    mutationFn: () => api.deleteAccount({ password, confirmation, ...(code.trim() ? { code: code.trim() } : {}) }),
    onSuccess: onDeleted,
    onError: (err) => setError(errorText(err, 'Could not delete the account')),
  });
  return (
    <Section title="Delete my account" testId="delete-account">
      <p>
        Deleting your account ends every session and destroys your personal data for good: your name, email address, date of birth and
        location can no longer be read. Payment records are kept for accounting, without your name. Your email address becomes free. This
        cannot be undone. See the <Link to="/privacy">Privacy Policy</Link> for what is kept and for how long.
      </p>
      <form
        className="form-stack"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          remove.mutate();
        }}
      >
        {error && <Alert>{error}</Alert>}
        <PasswordField
          label="Password"
          name="deletePassword"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        {mayNeedCode && (
          <FormField
            label={
              needsCode
                ? 'Code from your authenticator app (or a recovery code)'
                : 'Code from your authenticator app, if you turned on two-factor authentication'
            }
            name="deleteCode"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            required={needsCode}
          />
        )}
        <FormField
          label={`Type ${DELETE_CONFIRMATION} to confirm`}
          name="deleteConfirmation"
          autoComplete="off"
          value={confirmation}
          onChange={(e) => setConfirmation(e.target.value)}
          required
        />
        <Button
          type="submit"
          variant="danger"
          disabled={confirmation !== DELETE_CONFIRMATION}
          busy={remove.isPending}
          busyLabel="Deleting..."
        >
          Delete my account
        </Button>
      </form>
    </Section>
  );
}
