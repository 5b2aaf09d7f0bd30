/**
 * The transcode runners of the admin console (GET /admin/runners, docs/transcode-runners.md): each
 * runner token with its last contact (or when it was revoked), and each runner heard from in the
 * last 15 minutes with the token it came with, its jobs and its last heartbeat. Tokens are made and
 * revoked with `pnpm cli runners token …` on a server machine, never here.
 */
import { useQuery } from '@tanstack/react-query';
import type { ApiClient } from '../api/client';
import { adminQueries } from '../api/queries';
import type { AdminRunners } from '../api/types';
import { Card } from './Card';
import { DataTable } from './DataTable';
import { Alert, Spinner } from './Feedback';

/** Refreshed this often while shown: heartbeats come every few seconds. */
const RUNNERS_POLL_MS = 15_000;

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' }) : 'Never');

type TokenRow = AdminRunners['tokens'][number];
type RunnerRow = AdminRunners['runners'][number];

export function TranscodeRunners({ api }: { api: ApiClient }) {
  const q = useQuery({ ...adminQueries(api).runners(), refetchInterval: RUNNERS_POLL_MS });
  return (
    <Card title="Transcode runners" className="admin-section">
      {q.error ? <Alert>{(q.error as Error).message}</Alert> : null}
      {q.isPending ? (
        <Spinner label="Loading transcode runners..." />
      ) : q.data ? (
        <>
          <DataTable<TokenRow>
            caption="Runner tokens (pnpm cli runners token create NAME)"
            columns={[
              { key: 'name', header: 'Token', render: (t) => t.name },
              { key: 'created', header: 'Created', render: (t) => when(t.createdAt) },
              { key: 'contact', header: 'Last contact', render: (t) => when(t.lastUsedAt) },
              { key: 'state', header: 'State', render: (t) => (t.revokedAt ? `Revoked ${when(t.revokedAt)}` : 'Active') },
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
    </Card>
  );
}
