/**
 * The admin's live shows (issue 43, docs/live.md), shared by the web /admin/live page and the desktop
 * console: every show with its status, start and access level; a form to schedule one; the OBS
 * server URL and the stream key shown ONCE after scheduling or a rotation (the site keeps only the
 * key's SHA-256), with a copy button; "New key" (the old one stops working); "End show" after a
 * confirmation. For staff with the `videos` permission (the server refuses anyone else). Needs a
 * QueryClientProvider above it, and a `client` prop or an <ApiClientProvider>.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { AdminLiveShow } from '../api/types';
import { useOptionalApiClient } from './ApiContext';
import { Button } from './Button';
import { Card } from './Card';
import { ConfirmDialog } from './ConfirmDialog';
import { Alert, EmptyState, Spinner } from './Feedback';
import { CheckboxField, FormField, SelectField, TextAreaField } from './FormField';
import { StatusBadge } from './StatusBadge';

export const liveShowKeys = { admin: ['admin', 'live', 'shows'] as const };

const STATUS_WORDS: Record<AdminLiveShow['status'], string> = { scheduled: 'Scheduled', live: 'Live', ended: 'Ended' };
const STATUS_TONE: Record<AdminLiveShow['status'], 'info' | 'success' | 'neutral'> = {
  scheduled: 'info',
  live: 'success',
  ended: 'neutral',
};
const ACCESS_WORDS: Record<AdminLiveShow['accessLevel'], string> = { free: 'Free', premium: 'Premium', vip: 'VIP' };

/** The access level in words, with "annual only" when the show is exclusive to annual plans. */
export const liveAccessInWords = (s: Pick<AdminLiveShow, 'accessLevel' | 'exclusiveTo'>) =>
  `${ACCESS_WORDS[s.accessLevel]}${s.exclusiveTo === 'annual' ? ', annual plans only' : ''}`;

/** The server URL and the key, once: copy buttons and the note that it will not be shown again. */
function StreamKeyPanel({ show, onDone }: { show: AdminLiveShow & { streamKey: string }; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (what: string, value: string) =>
    void navigator.clipboard?.writeText(value).then(
      () => setCopied(what),
      () => setCopied(null),
    );
  const keyId = useId();
  const serverId = useId();
  return (
    <section className="live-key" data-testid="live-key-panel" aria-label={`OBS settings for ${show.title}`}>
      <Alert tone="warning">
        <strong>Shown once.</strong> Copy the stream key into OBS now (Settings → Stream → Service "Custom…"). The site keeps only a
        fingerprint of it: it cannot show it again. Lost it? Make a new key.
      </Alert>
      <div className="field">
        <label htmlFor={serverId}>Server</label>
        <div className="inline-form">
          <input id={serverId} className="input" readOnly value={show.ingestUrl} data-testid="live-ingest-url" />
          <Button variant="secondary" onClick={() => copy('server', show.ingestUrl)}>
            Copy server
          </Button>
        </div>
      </div>
      <div className="field">
        <label htmlFor={keyId}>Stream key</label>
        <div className="inline-form">
          <input id={keyId} className="input" readOnly value={show.streamKey} data-testid="live-stream-key" />
          <Button variant="secondary" onClick={() => copy('key', show.streamKey)}>
            Copy key
          </Button>
        </div>
      </div>
      <p className="muted" aria-live="polite">
        {copied === 'key' ? 'Stream key copied.' : copied === 'server' ? 'Server copied.' : ''}
      </p>
      <Button onClick={onDone}>I have copied it</Button>
    </section>
  );
}

const localInput = (d: Date) => {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

function ScheduleForm({ api, onScheduled }: { api: ApiClient; onScheduled: (show: AdminLiveShow) => void }) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [accessLevel, setAccessLevel] = useState<AdminLiveShow['accessLevel']>('premium');
  const [annualOnly, setAnnualOnly] = useState(false);
  const [startsAt, setStartsAt] = useState(() => localInput(new Date(Date.now() + 3_600_000)));
  const [saveReplay, setSaveReplay] = useState(true);
  // gcTime 0: the answer (with the key) is not kept in the mutation cache once the form is gone.
  const schedule = useMutation({
    gcTime: 0,
    mutationFn: () =>
      api.scheduleLiveShow({
        title: title.trim(),
        ...(description.trim() && { description: description.trim() }),
        accessLevel,
        exclusiveTo: annualOnly ? 'annual' : null,
        startsAt: new Date(startsAt).toISOString(),
        saveReplay,
      }),
    onSuccess: (show) => {
      setTitle('');
      setDescription('');
      onScheduled(show);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (title.trim() && !Number.isNaN(new Date(startsAt).getTime())) schedule.mutate();
  };
  return (
    <form className="live-schedule" onSubmit={submit} aria-label="Schedule a show">
      <h3 className="card-subtitle">Schedule a show</h3>
      {schedule.error && <Alert>{schedule.error.message}</Alert>}
      <div className="form-grid">
        <FormField label="Title" name="title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} required />
        <FormField
          label="Starts at"
          name="startsAt"
          type="datetime-local"
          hint="Your local time. The show goes live when OBS starts streaming."
          value={startsAt}
          onChange={(e) => setStartsAt(e.target.value)}
          required
        />
        <SelectField
          label="Access level"
          name="accessLevel"
          value={accessLevel}
          onChange={(e) => setAccessLevel(e.target.value as AdminLiveShow['accessLevel'])}
          options={[
            { value: 'free', label: 'Free' },
            { value: 'premium', label: 'Premium' },
            { value: 'vip', label: 'VIP' },
          ]}
        />
      </div>
      <TextAreaField
        label="Description"
        name="description"
        rows={2}
        maxLength={5000}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <CheckboxField label="Annual plans only" checked={annualOnly} onChange={(e) => setAnnualOnly(e.target.checked)} />
      <CheckboxField
        label="Keep the replay (an unpublished library video after the show)"
        checked={saveReplay}
        onChange={(e) => setSaveReplay(e.target.checked)}
      />
      <Button type="submit" busy={schedule.isPending} busyLabel="Scheduling..." disabled={!title.trim()}>
        Schedule show
      </Button>
    </form>
  );
}

export interface LiveShowsAdminProps {
  client?: ApiClient;
  /** A link to the show's page where the host has one (the web's /live/{id}). */
  renderShowLink?: (show: AdminLiveShow) => ReactNode;
}

export function LiveShowsAdmin({ client, renderShowLink }: LiveShowsAdminProps) {
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('LiveShowsAdmin needs a client prop or an <ApiClientProvider>');
  const qc = useQueryClient();
  const shows = useQuery({ queryKey: liveShowKeys.admin, queryFn: () => api.adminLiveShows() });
  const [keyed, setKeyed] = useState<(AdminLiveShow & { streamKey: string }) | null>(null);
  const [ending, setEnding] = useState<AdminLiveShow | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: liveShowKeys.admin });
  const showKey = (show: AdminLiveShow) => {
    if (show.streamKey) setKeyed({ ...show, streamKey: show.streamKey });
    refresh();
  };
  const rotate = useMutation({ gcTime: 0, mutationFn: (id: string) => api.rotateLiveShowKey(id), onSuccess: showKey });
  const end = useMutation({ mutationFn: (id: string) => api.endLiveShow(id), onSuccess: refresh });
  const problem = rotate.error ?? end.error;

  return (
    <Card title="Live shows" className="live-admin">
      <p className="muted">
        Schedule a show, then stream to it from OBS with the server and key shown below. Members the show's access level allows watch it on
        its page, with its chat beside the player.
      </p>
      {keyed ? <StreamKeyPanel show={keyed} onDone={() => setKeyed(null)} /> : <ScheduleForm api={api} onScheduled={showKey} />}
      {problem && <Alert>{problem.message}</Alert>}
      <h3 className="card-subtitle">Shows</h3>
      {shows.isLoading ? (
        <Spinner label="Loading shows..." />
      ) : shows.error ? (
        <Alert>{shows.error.message}</Alert>
      ) : (shows.data ?? []).length === 0 ? (
        <EmptyState>No show scheduled yet.</EmptyState>
      ) : (
        <table className="table live-shows">
          <thead>
            <tr>
              <th scope="col">Show</th>
              <th scope="col">Status</th>
              <th scope="col">Starts</th>
              <th scope="col">Access</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(shows.data ?? []).map((s) => (
              <tr key={s.id} data-testid="live-show-row" data-status={s.status}>
                <td>{renderShowLink ? renderShowLink(s) : s.title}</td>
                <td>
                  <StatusBadge tone={STATUS_TONE[s.status]}>{STATUS_WORDS[s.status]}</StatusBadge>
                </td>
                <td>
                  <time dateTime={s.startsAt}>{new Date(s.startsAt).toLocaleString()}</time>
                </td>
                <td>{liveAccessInWords(s)}</td>
                <td>
                  {s.status !== 'ended' && (
                    <span className="inline-form">
                      <Button
                        variant="secondary"
                        size="sm"
                        busy={rotate.isPending && rotate.variables === s.id}
                        busyLabel="Making a key..."
                        onClick={() => rotate.mutate(s.id)}
                        aria-label={`New key for ${s.title}`}
                      >
                        New key
                      </Button>
                      <Button variant="danger" size="sm" onClick={() => setEnding(s)} aria-label={`End show: ${s.title}`}>
                        End show
                      </Button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={ending !== null}
        title="End this show?"
        message={`"${ending?.title ?? ''}" ends now: OBS is disconnected within 2 seconds and the show cannot go live again.`}
        confirmLabel="End show"
        danger
        onConfirm={() => {
          if (ending) end.mutate(ending.id);
          setEnding(null);
        }}
        onCancel={() => setEnding(null)}
      />
    </Card>
  );
}
