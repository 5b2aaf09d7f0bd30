/**
 * Passkeys (issue 42): the account's list (name, added, last used, remove) and the form that adds one
 * (a name, then the browser's own passkey prompt, @simplewebauthn/browser). Shown in the account
 * settings and on /account/two-factor, where an admin who must enrol a second factor may choose a
 * passkey instead of an authenticator app.
 */
import { Alert, Button, DataTable, FormField, Spinner } from '@members/ui';
import type { Passkey } from '@members/ui/api';
import { formatDate } from '@members/ui/format';
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../app/api';
import { identityKeys, queries } from '../../app/queries';
import { errorText, type Notice, NoticeLine, Section } from './accountParts';

const when = (iso: string | null) => (iso ? formatDate(new Date(iso)) : 'Never');

/** A browser's refusal of its prompt (cancelled, timed out) in words; the server's errors as they are. */
function passkeyError(err: unknown, fallback: string): string {
  const name = (err as { name?: string }).name;
  if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey prompt was cancelled or timed out.';
  if (name === 'InvalidStateError') return 'This passkey is already registered.';
  return errorText(err, fallback);
}

export function Passkeys({ onAdded }: { onAdded?: () => void }) {
  const qc = useQueryClient();
  const list = useQuery({ ...queries.identity.passkeys(), retry: false });
  const [name, setName] = useState('');
  const [notice, setNotice] = useState<Notice>(null);
  const supported = browserSupportsWebAuthn();

  const add = useMutation({
    mutationFn: async (label: string) => {
      const { ceremonyId, options } = await api.startPasskeyRegistration();
      const credential = await startRegistration({
        optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'],
      });
      return api.addPasskey(ceremonyId, label, credential);
    },
    onSuccess: async (p) => {
      setName('');
      setNotice({ tone: 'success', text: `Passkey "${p.name}" added.` });
      await qc.invalidateQueries({ queryKey: identityKeys.passkeys });
      await qc.invalidateQueries({ queryKey: identityKeys.mfaStatus });
      onAdded?.();
    },
    onError: (err) => setNotice({ tone: 'error', text: passkeyError(err, 'Could not add the passkey') }),
  });
  const remove = useMutation({
    mutationFn: (p: Passkey) => api.removePasskey(p.id),
    onSuccess: async () => {
      setNotice({ tone: 'success', text: 'Passkey removed.' });
      await qc.invalidateQueries({ queryKey: identityKeys.passkeys });
      await qc.invalidateQueries({ queryKey: identityKeys.mfaStatus });
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Could not remove the passkey') }),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    // The server's `passkeyNameSchema` (1 to 60 characters once trimmed); zod itself stays out of the
    // page's bundle (its compiled parsers use `new Function`, which the CSP forbids).
    const label = name.trim();
    if (!label || label.length > 60) {
      setNotice({ tone: 'error', text: label ? 'Name must be at most 60 characters' : 'Name is required' });
      return;
    }
    add.mutate(label);
  }

  const passkeys = list.data ?? [];
  return (
    <Section title="Passkeys" testId="passkeys">
      <p>Sign in with your fingerprint, face or device PIN instead of a password. A passkey also counts as a second factor.</p>
      <NoticeLine notice={notice} />
      {list.isError && <Alert>{errorText(list.error, 'Could not load your passkeys')}</Alert>}
      {list.isPending ? (
        <Spinner label="Loading passkeys..." />
      ) : (
        <DataTable<Passkey>
          caption={`Passkeys (${passkeys.length})`}
          rows={passkeys}
          rowKey={(p) => p.id}
          empty="No passkeys yet"
          columns={[
            { key: 'name', header: 'Name', render: (p) => p.name },
            { key: 'added', header: 'Added', render: (p) => when(p.createdAt) },
            { key: 'used', header: 'Last used', render: (p) => when(p.lastUsedAt) },
            {
              key: 'actions',
              header: 'Actions',
              render: (p) => (
                <Button
                  size="sm"
                  variant="ghost"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate(p)}
                  aria-label={`Remove ${p.name}`}
                >
                  Remove
                </Button>
              ),
            },
          ]}
        />
      )}
      {supported ? (
        <form onSubmit={submit} noValidate>
          <FormField
            label="Passkey name"
            name="passkeyName"
            maxLength={60}
            value={name}
            onChange={(e) => setName(e.target.value)}
            hint="e.g. Laptop, Phone"
          />
          <Button type="submit" variant="secondary" busy={add.isPending} busyLabel="Waiting for your passkey...">
            Add a passkey
          </Button>
        </form>
      ) : (
        <p>This browser does not support passkeys.</p>
      )}
    </Section>
  );
}
