/**
 * The transcode runners of the admin console (GET /admin/runners, docs/transcode-runners.md): each
 * runner token with its last contact (or when it was revoked), and each runner heard from in the
 * last 15 minutes with the token it came with, its jobs and its last heartbeat. The admin makes a
 * token here (shown once, with the command that starts a runner with it) or revokes one; the same
 * as `pnpm cli runners token create NAME` / `revoke NAME` on a server machine.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiClient } from '../api/client';
import { adminKeys, adminQueries } from '../api/queries';
import type { AdminRunners, RunnerTokenCreated } from '../api/types';
import { errorText } from '../format/errorText';
import { Button } from './Button';
import { Card } from './Card';
import { ConfirmDialog } from './ConfirmDialog';
import { DataTable } from './DataTable';
import { Alert, Spinner } from './Feedback';
import { FormField } from './FormField';

/** Refreshed this often while shown: heartbeats come every few seconds. */
const RUNNERS_POLL_MS = 15_000;

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' }) : 'Never');

type TokenRow = AdminRunners['tokens'][number];
type RunnerRow = AdminRunners['runners'][number];

/** The site's address as a runner names it (`--server`): the API's origin. */
const siteOrigin = (api: ApiClient) => new URL(api.baseUrl, globalThis.location?.href ?? 'http://localhost/').origin;

/** The token just made: shown once, with the command that starts a runner holding it. */
function NewToken({ made, server, onDone }: { made: RunnerTokenCreated; server: string; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  const command = `RUNNER_TOKEN=${made.token} pnpm cli transcode-runner --server ${server}`;
  return (
    <Alert tone="success">
      <p>
        Runner token “{made.name}” made. It is shown only now: give it to the runner as <code>RUNNER_TOKEN</code>.
      </p>
      <pre className="runner-token" data-testid="runner-token">
        {command}
      </pre>
      <Button
        variant="secondary"
        size="sm"
        onClick={() => {
          void navigator.clipboard?.writeText(command).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? 'Copied' : 'Copy command'}
      </Button>{' '}
      <Button variant="ghost" size="sm" onClick={onDone}>
        Done
      </Button>
    </Alert>
  );
}

export function TranscodeRunners({ api }: { api: ApiClient }) {
  const qc = useQueryClient();
  const q = useQuery({ ...adminQueries(api).runners(), refetchInterval: RUNNERS_POLL_MS });
  const [name, setName] = useState('');
  const [made, setMade] = useState<RunnerTokenCreated | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: adminKeys.runners });

  const create = useMutation({
    mutationFn: (tokenName: string) => api.createRunnerToken(tokenName),
    onSuccess: (answer) => {
      setMade(answer);
      setName('');
      setNotice(null);
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to make the runner token') }),
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: (tokenName: string) => api.revokeRunnerToken(tokenName),
    onSuccess: (answer) =>
      setNotice({ tone: 'success', text: `Runner token “${answer.name}” revoked: its runners stop at their next call.` }),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to revoke the runner token') }),
    onSettled: () => {
      setRevoking(null);
      void refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim()) create.mutate(name.trim());
  };

  return (
    <Card title="Transcode runners" className="admin-section">
      {q.error ? <Alert>{(q.error as Error).message}</Alert> : null}
      {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}
      {made ? <NewToken made={made} server={siteOrigin(api)} onDone={() => setMade(null)} /> : null}
      <form className="runner-token-form" onSubmit={submit}>
        <FormField
          label="New runner token"
          hint="A name for the machine that will run it: letters, digits, “.”, “_” and “-”"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={63}
          required
        />
        <Button type="submit" busy={create.isPending} busyLabel="Making…">
          Make token
        </Button>
      </form>
      {q.isPending ? (
        <Spinner label="Loading transcode runners..." />
      ) : q.data ? (
        <>
          <DataTable<TokenRow>
            caption="Runner tokens"
            columns={[
              { key: 'name', header: 'Token', render: (t) => t.name },
              { key: 'created', header: 'Created', render: (t) => when(t.createdAt) },
              { key: 'contact', header: 'Last contact', render: (t) => when(t.lastUsedAt) },
              { key: 'state', header: 'State', render: (t) => (t.revokedAt ? `Revoked ${when(t.revokedAt)}` : 'Active') },
              {
                key: 'actions',
                header: 'Actions',
                render: (t) =>
                  t.revokedAt ? null : (
                    <Button
                      variant="danger"
                      size="sm"
                      busy={revoke.isPending && revoke.variables === t.name}
                      busyLabel="Revoking…"
                      onClick={() => setRevoking(t.name)}
                      aria-label={`Revoke runner token ${t.name}`}
                    >
                      Revoke
                    </Button>
                  ),
              },
            ]}
            rows={q.data.tokens}
            rowKey={(t) => t.name}
            empty="No runner tokens: this site transcodes in its API processes only."
          />
          <DataTable<RunnerRow>
            caption="Runners heard from in the last 15 minutes"
            columns={[
              { key: 'id', header: 'Runner', render: (r) => r.id },
              { key: 'token', header: 'Token', render: (r) => r.tokenName ?? (r.kind === 'server' ? 'In-server' : '—') },
              { key: 'jobs', header: 'Jobs', render: (r) => `${r.jobs} of ${r.concurrency}` },
              { key: 'contact', header: 'Last contact', render: (r) => `${when(r.heartbeatAt)} (${r.heartbeatAgeSeconds} s ago)` },
            ]}
            rows={q.data.runners}
            rowKey={(r) => r.id}
            empty="No runner is running."
          />
        </>
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke runner token “${revoking ?? ''}”?`}
        message="Its runners stop at their next call, and their jobs go back to the queue when their leases pass. A new token of that name can be made afterwards."
        confirmLabel="Revoke"
        danger
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      />
    </Card>
  );
}
