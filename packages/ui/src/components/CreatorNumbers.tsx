/**
 * The creator's numbers, shared by the web /admin and the desktop console: per plan and UTC calendar
 * month (active members at the month end, new, churned, renewed, median membership length, verified
 * revenue) over a chosen number of months, and views and watch time per video over a chosen period.
 * Plain tables with column headers and captions, so a screen reader reads every figure with its name.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiClient } from '../api/client';
import { adminQueries } from '../api/queries';
import type { PlanMonth, VideoAnalytics } from '../api/types';
import { formatBtc } from '../money/btc';
import { useOptionalApiClient } from './ApiContext';
import { Card } from './Card';
import { type Column, DataTable } from './DataTable';
import { Alert, Spinner } from './Feedback';
import { FormField, SelectField } from './FormField';

const PLAN_LABEL: Record<PlanMonth['plan'], string> = { monthly: 'Monthly', annual: 'Annual' };

/**
 * Seconds as hours, minutes and seconds (h:mm:ss).
 * @example formatWatchTime(3725) // '1:02:05'
 */
export function formatWatchTime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

const planColumns: Column<PlanMonth>[] = [
  { key: 'month', header: 'Month', render: (r) => r.month },
  { key: 'plan', header: 'Plan', render: (r) => PLAN_LABEL[r.plan] },
  { key: 'active', header: 'Active at month end', render: (r) => r.activeMembers },
  { key: 'new', header: 'New', render: (r) => r.newMembers },
  { key: 'churned', header: 'Churned', render: (r) => r.churned },
  { key: 'renewed', header: 'Renewed', render: (r) => r.renewed },
  { key: 'median', header: 'Median membership (days)', render: (r) => (r.medianMembershipDays === null ? '–' : r.medianMembershipDays) },
  { key: 'revenue', header: 'Revenue', render: (r) => formatBtc(r.revenueBtc) },
];

/** One row per month and plan, oldest month first. */
export function PlanMonthsTable({ rows }: { rows: PlanMonth[] }) {
  return (
    <DataTable
      caption="Members and revenue per plan and month (UTC)"
      columns={planColumns}
      rows={rows}
      rowKey={(r) => `${r.month}-${r.plan}`}
      empty="No figures yet"
    />
  );
}

type VideoRow = VideoAnalytics['videos'][number];
const videoColumns: Column<VideoRow>[] = [
  { key: 'title', header: 'Video', render: (r) => r.title || `Deleted video ${r.videoId.slice(0, 8)}` },
  { key: 'views', header: 'Views', render: (r) => r.views },
  { key: 'watch', header: 'Watch time (h:mm:ss)', render: (r) => formatWatchTime(r.watchSeconds) },
];

/** One row per video, most watched first. */
export function VideoFiguresTable({ answer }: { answer: VideoAnalytics }) {
  return (
    <DataTable
      caption={`Views and watch time per video, ${answer.from} to ${answer.to} (UTC)`}
      columns={videoColumns}
      rows={answer.videos}
      rowKey={(r) => r.videoId}
      empty="No views in this period"
    />
  );
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const MONTH_CHOICES = [3, 6, 12, 24, 36].map((n) => ({ value: String(n), label: `Last ${n} months` }));

/** Both tables with their choosers (months; a period of UTC days), over the API client from context or `client`. */
export function CreatorNumbers({ client, today = new Date() }: { client?: ApiClient; today?: Date }) {
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('CreatorNumbers needs a client prop or an <ApiClientProvider>');
  const queries = adminQueries(api);
  const [months, setMonths] = useState(12);
  const [to, setTo] = useState(isoDay(today));
  const [from, setFrom] = useState(isoDay(new Date(today.getTime() - 29 * 86_400_000)));
  const byPlan = useQuery(queries.analyticsByPlan(months));
  const videos = useQuery({ ...queries.videoAnalytics(from, to), enabled: from !== '' && to !== '' && from <= to });

  return (
    <Card title="Members per plan" className="admin-section">
      <SelectField label="Months" value={String(months)} options={MONTH_CHOICES} onChange={(e) => setMonths(Number(e.target.value))} />
      {byPlan.error ? (
        <Alert>{(byPlan.error as Error).message}</Alert>
      ) : byPlan.isPending ? (
        <Spinner label="Loading the figures per plan..." />
      ) : (
        <PlanMonthsTable rows={byPlan.data.byPlan} />
      )}
      <h3>Views and watch time per video</h3>
      <div className="inline-form">
        <FormField label="From" type="date" value={from} max={to} onChange={(e) => setFrom(e.target.value)} />
        <FormField label="To" type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} />
      </div>
      {from > to ? (
        <Alert>The period must start on or before its last day.</Alert>
      ) : videos.error ? (
        <Alert>{(videos.error as Error).message}</Alert>
      ) : videos.isPending ? (
        <Spinner label="Loading the figures per video..." />
      ) : (
        <VideoFiguresTable answer={videos.data} />
      )}
    </Card>
  );
}
