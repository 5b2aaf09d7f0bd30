/**
 * Leak tracing (docs/leak-tracing.md), shared by the web /admin page and the desktop console: the
 * admin picks a leaked copy (and, if known, the video it is from), the server examines it in the
 * background, and the answer is shown in plain words — the member the copy was streamed by with how
 * sure that is, or why no one is named. Below, every past examination (the CLI's too). The desktop
 * hands a client whose `examineLeakCopy` sends the local file through its main process. Needs a
 * QueryClientProvider above it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import type { ApiClient } from '../api/client';
import { displayText } from '../api/schemas/text';
import type { LeakExamination, LeakExaminationRecord } from '../api/types';
import { useOptionalApiClient } from './ApiContext';
import { Button } from './Button';
import { Card } from './Card';
import { Alert, EmptyState, Spinner } from './Feedback';
import { FormField } from './FormField';
import { StatusBadge } from './StatusBadge';

export const leakKeys = {
  list: ['admin', 'leaks'] as const,
  one: (id: string) => ['admin', 'leaks', id] as const,
};

const seconds = (s: number) => `${Math.round(s)} s`;
const bytes = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} kB`);

/** The outcome in plain words: a headline and the detail under it. */
export function leakOutcomeInWords(e: LeakExamination): {
  tone: 'info' | 'success' | 'warning' | 'error';
  headline: string;
  detail?: string;
} {
  if (e.status === 'queued') return { tone: 'info', headline: 'Waiting to be examined…' };
  if (e.status === 'running')
    return { tone: 'info', headline: 'Examining the copy…', detail: 'Decoding and comparing it with the marked videos.' };
  const o = e.outcome;
  if (!o) return { tone: 'error', headline: 'The examination failed', detail: e.summary };
  switch (o.kind) {
    case 'identified': {
      const who = o.member.email
        ? `${(o.member.displayName && displayText(o.member.displayName, { multiLine: false })) || 'A member'} (${o.member.email})`
        : 'a member who has since been erased';
      return {
        tone: 'success',
        headline: `This copy was streamed by ${who}.`,
        detail: `Member ${o.member.id}. ${o.bitsRead} segments read clearly from ${seconds(o.stretch.from)} to ${seconds(o.stretch.to)} of video ${o.videoId}, ${o.bitsDiffering} differing from the member's code; the chance this names the wrong member is at most ${o.falseMatchBound.toExponential(1)} (over ${o.membersBound.toLocaleString('en-US')} members). A name is evidence to look into, not a verdict: an account may have been shared or stolen.`,
      };
    }
    case 'no-match':
      return {
        tone: 'warning',
        headline: 'No match: no member is named.',
        detail:
          o.bitsRead > 0
            ? `${o.bitsRead} segments read clearly, and no member's code is close enough to name anyone.`
            : 'The copy does not match a marked video, or carries no readable mark (an unmarked file, or a video transcoded before leak tracing was on).',
      };
    case 'too-short':
      return {
        tone: 'warning',
        headline: `Too short: the copy needs at least ${o.neededSeconds} s of one marked video.`,
        detail: 'A shorter copy cannot name anyone safely. Send a longer stretch if you have one.',
      };
    case 'unreadable':
      return { tone: 'error', headline: 'Unreadable file: this is not a video the server can decode.', detail: o.reason };
  }
}

function CurrentExamination({ api, id }: { api: ApiClient; id: string }) {
  const q = useQuery({
    queryKey: leakKeys.one(id),
    queryFn: () => api.leakExamination(id),
    refetchInterval: (query) => (query.state.data && ['done', 'failed'].includes(query.state.data.status) ? false : 1000),
  });
  const qc = useQueryClient();
  const finished = q.data && (q.data.status === 'done' || q.data.status === 'failed');
  useEffect(() => {
    if (finished) void qc.invalidateQueries({ queryKey: leakKeys.list });
  }, [finished, qc]);
  if (q.error) return <Alert>{q.error.message}</Alert>;
  if (!q.data) return <Spinner label="Sending…" />;
  const words = leakOutcomeInWords(q.data);
  return (
    <div className="leak-outcome" data-testid="leak-outcome" data-status={q.data.status} aria-live="polite">
      {finished ? (
        <Alert tone={words.tone}>
          <strong>{words.headline}</strong>
          {words.detail && <span className="leak-outcome-detail"> {words.detail}</span>}
        </Alert>
      ) : (
        <Spinner label={words.headline} />
      )}
      <p className="muted">
        {q.data.fileName} · {bytes(q.data.sizeBytes)} · SHA-256 <code>{q.data.sha256}</code>
      </p>
    </div>
  );
}

const OUTCOME_WORDS: Record<LeakExaminationRecord['outcome'], string> = {
  identified: 'member named',
  'no-match': 'no match',
  'too-short': 'too short',
  unreadable: 'unreadable file',
};
const OUTCOME_TONE: Record<LeakExaminationRecord['outcome'], 'success' | 'neutral' | 'warning' | 'danger'> = {
  identified: 'success',
  'no-match': 'neutral',
  'too-short': 'warning',
  unreadable: 'danger',
};

export interface LeakTracingProps {
  client?: ApiClient;
  /**
   * Picks the copy another way than the page's file input (the desktop's native dialog): a File the
   * client's `examineLeakCopy` knows how to send, or null when the admin cancels.
   */
  chooseFile?: () => Promise<File | null>;
}

export function LeakTracing({ client, chooseFile }: LeakTracingProps) {
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('LeakTracing needs a client prop or an <ApiClientProvider>');
  const fileId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [videoId, setVideoId] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const [current, setCurrent] = useState<string | null>(null);
  const list = useQuery({ queryKey: leakKeys.list, queryFn: () => api.leakExaminations() });
  const send = useMutation({
    mutationFn: (f: File) => api.examineLeakCopy(f, { videoId: videoId.trim() || undefined, fileName: f.name }, setProgress),
    onSuccess: (e) => {
      setCurrent(e.id);
      setProgress(null);
    },
    onError: () => setProgress(null),
  });
  const enabled = list.data?.enabled ?? true;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (file) send.mutate(file);
  };
  return (
    <Card title="Leak tracing" className="leak-tracing">
      <p className="muted">
        Send a leaked copy of a video (any format, at least about 40 s of it uncut) to find the member whose stream it was made from. Every
        examination is recorded.
      </p>
      {list.data && !enabled && (
        <Alert tone="warning">
          Leak tracing is off on this server: streams carry no mark to read a copy by. Set FORENSIC_WATERMARK=true and transcode the videos
          again.
        </Alert>
      )}
      <form className="leak-form" onSubmit={submit}>
        <div className="field">
          {/* A label would rename the desktop's button: there the heading-like text names the group instead. */}
          {chooseFile ? <span id={`${fileId}-label`}>Leaked copy</span> : <label htmlFor={fileId}>Leaked copy</label>}
          {chooseFile ? (
            <div className="inline-form">
              <Button
                id={fileId}
                type="button"
                variant="secondary"
                aria-describedby={`${fileId}-label ${fileId}-hint`}
                onClick={async () => setFile((await chooseFile()) ?? file)}
              >
                Choose file…
              </Button>
              <span data-testid="leak-file-name">{file ? file.name : 'No file chosen'}</span>
            </div>
          ) : (
            <input
              id={fileId}
              className="input"
              type="file"
              accept="video/*,.mp4,.mkv,.webm,.mov,.ts,.avi"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              aria-describedby={`${fileId}-hint`}
              required
            />
          )}
          <small className="field-hint" id={`${fileId}-hint`}>
            {list.data ? `Up to ${bytes(list.data.maxBytes)}.` : 'Any format ffmpeg reads.'}
          </small>
        </div>
        <FormField
          label="Video id (optional)"
          hint="Leave empty to find the video by comparing the copy with every marked video."
          value={videoId}
          onChange={(e) => setVideoId(e.target.value)}
          maxLength={64}
        />
        <Button
          type="submit"
          busy={send.isPending}
          busyLabel={progress === null ? 'Sending…' : `Sending… ${Math.round(progress * 100)}%`}
          disabled={!file || !enabled}
        >
          Examine copy
        </Button>
      </form>
      {send.error && <Alert>{send.error.message}</Alert>}
      {current && <CurrentExamination key={current} api={api} id={current} />}
      <h3 className="card-subtitle">Past examinations</h3>
      {list.isLoading ? (
        <Spinner label="Loading examinations..." />
      ) : list.error ? (
        <Alert>{list.error.message}</Alert>
      ) : (list.data?.examinations ?? []).length === 0 ? (
        <EmptyState>No leaked copy examined yet.</EmptyState>
      ) : (
        <table className="table leak-history">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Asked by</th>
              <th scope="col">File</th>
              <th scope="col">Outcome</th>
              <th scope="col">Member</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.examinations ?? []).map((r, i) => (
              <tr key={r.examinationId ?? `${r.at}-${i}`}>
                <td>{new Date(r.at).toLocaleString()}</td>
                <td>{r.examinedBy}</td>
                <td>
                  {r.fileName ?? '—'} <code title={`SHA-256 ${r.sha256}`}>{r.sha256.slice(0, 12)}…</code>
                </td>
                <td>
                  <StatusBadge tone={OUTCOME_TONE[r.outcome]}>{OUTCOME_WORDS[r.outcome]}</StatusBadge>
                </td>
                <td>{r.memberId ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
