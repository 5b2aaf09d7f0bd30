/**
 * Account settings: the second factor's state (managed on /account/two-factor) and the signed-in
 * devices, signed out one by one or all others at once, after the password is given again or a
 * passkey confirms it (issue 42).
 */
import { Alert, Button, DataTable, PasswordField, Spinner, StatusBadge } from '@members/ui';
import type { AccountSession } from '@members/ui/api';
import { formatDate } from '@members/ui/format';
import { startAuthentication } from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { api, TWO_FACTOR_PATH } from '../../app/api';
import { identityKeys, queries } from '../../app/queries';
import { errorText, type Notice, NoticeLine, Section } from './accountParts';

export function TwoFactorSummary() {
  const status = useQuery({ ...queries.identity.mfaStatus(), retry: false });
  return (
    <Section title="Two-factor authentication" testId="two-factor">
      {status.isPending ? (
        <Spinner label="Loading..." />
      ) : status.isError ? (
        <Alert>{errorText(status.error, 'Could not load the two-factor status')}</Alert>
      ) : (
        <p>
          {status.data.enabled ? <StatusBadge tone="success">On</StatusBadge> : <StatusBadge tone="neutral">Off</StatusBadge>}{' '}
          {status.data.enabled
            ? 'A code from your authenticator app is asked for at every login.'
            : 'Add a code from an authenticator app to your login, so a stolen password is not enough.'}
        </p>
      )}
      <Link className="btn btn-secondary" to={TWO_FACTOR_PATH}>
        {status.data?.enabled ? 'Manage two-factor authentication' : 'Set up two-factor authentication'}
      </Link>
    </Section>
  );
}

/** A readable name for a user agent: browser and system when we recognise them, else the raw string. */
function deviceName(ua: string | null): string {
  if (!ua) return 'Unknown device';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrome\/|Chromium\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : null;
  const system = /iPhone|iPad/.test(ua)
    ? 'iOS'
    : /Android/.test(ua)
      ? 'Android'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : null;
  return browser && system ? `${browser} on ${system}` : ua;
}

const dateTime = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? 'N/A' : `${formatDate(d)} ${d.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })}`;
};

type Proof = Parameters<typeof api.revokeOtherSessions>[0];

export function Sessions() {
  const qc = useQueryClient();
  const list = useQuery({ ...queries.identity.sessions(), retry: false });
  const passkeys = useQuery({ ...queries.identity.passkeys(), retry: false });
  const [notice, setNotice] = useState<Notice>(null);
  const [password, setPassword] = useState('');
  const done = async (text: string) => {
    setNotice({ tone: 'success', text });
    setPassword('');
    await qc.invalidateQueries({ queryKey: identityKeys.sessions });
  };
  /** The password typed, else one of the member's passkeys (its prompt), else a request for the password. */
  async function proof(): Promise<Proof> {
    if (password) return { password };
    if (!passkeys.data?.length) throw new Error('Enter your password to sign other devices out.');
    const { ceremonyId, options } = await api.startPasskeyReauthentication();
    const credential = await startAuthentication({
      optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'],
    });
    return { passkey: { ceremonyId, credential } };
  }
  const revokeOne = useMutation({
    mutationFn: async (s: AccountSession) => api.revokeSession(s.id, await proof()),
    onSuccess: () => done('That session has been signed out.'),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Could not sign out that session') }),
  });
  const revokeOthers = useMutation({
    mutationFn: async () => api.revokeOtherSessions(await proof()),
    onSuccess: (r) => done(`${r.revoked} other session${r.revoked === 1 ? '' : 's'} signed out.`),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Could not sign out') }),
  });
  const sessions = list.data ?? [];
  return (
    <Section title="Signed-in devices" testId="sessions">
      <NoticeLine notice={notice} />
      {list.isError && <Alert>{errorText(list.error, 'Could not load your sessions')}</Alert>}
      {list.isPending ? (
        <Spinner label="Loading sessions..." />
      ) : (
        <DataTable<AccountSession>
          caption={`Active sessions (${sessions.length})`}
          rows={sessions}
          rowKey={(s) => s.id}
          empty="No active sessions"
          columns={[
            {
              key: 'device',
              header: 'Device',
              render: (s) => (
                <span title={s.userAgent ?? undefined}>
                  {deviceName(s.userAgent)}{' '}
                  {s.current && (
                    <StatusBadge tone="brand" className="current-session">
                      This device
                    </StatusBadge>
                  )}
                </span>
              ),
            },
            { key: 'created', header: 'Signed in', render: (s) => dateTime(s.createdAt) },
            { key: 'used', header: 'Last used', render: (s) => dateTime(s.lastUsedAt) },
            {
              key: 'actions',
              header: 'Actions',
              render: (s) =>
                s.current ? null : (
                  <Button
                    size="sm"
                    variant="ghost"
                    disabled={revokeOne.isPending}
                    onClick={() => revokeOne.mutate(s)}
                    aria-label={`Sign out ${deviceName(s.userAgent)}`}
                  >
                    Sign out
                  </Button>
                ),
            },
          ]}
        />
      )}
      <p>
        {passkeys.data?.length
          ? 'Signing other devices out asks for your password again. Leave it empty to confirm with a passkey instead.'
          : 'Signing other devices out asks for your password again.'}
      </p>
      <PasswordField
        label="Password"
        name="sessionsPassword"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <Button
        variant="secondary"
        disabled={sessions.filter((s) => !s.current).length === 0}
        busy={revokeOthers.isPending}
        busyLabel="Signing out..."
        onClick={() => revokeOthers.mutate()}
      >
        Sign out all other sessions
      </Button>
    </Section>
  );
}
