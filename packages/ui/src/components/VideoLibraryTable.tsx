/**
 * The admin's video table: thumbnail, title (with resolution, codec and size), model, duration m:ss,
 * access level (a select that saves on change), published state, the HLS transcode (a progress bar
 * while it runs, the qualities once done, the reason and a Retry button when it failed), views,
 * uploaded date, and per-row Publish/Unpublish and Delete. The status says "Scheduled: {date}" for a
 * video whose release is still to come and "Annual only" for a behind-the-scenes one; "Release" opens
 * their edit, "Preview" (when the screen gives one) plays it as the admin. Every control is named
 * after the video for screen readers.
 */
import type { ReactNode } from 'react';
import type { AdminVideo } from '../api/types';
import { formatDate } from '../format/dates';
import { formatDuration } from '../format/duration';
import { ACCESS_LEVEL_OPTIONS, formatFileSize, videoSpecs } from '../format/library';
import { isScheduled, scheduledText } from '../format/release';
import { Button } from './Button';
import { DataTable } from './DataTable';
import { StatusBadge } from './StatusBadge';
import { VideoThumbnail } from './VideoThumbnail';

export type AccessLevelValue = (typeof ACCESS_LEVEL_OPTIONS)[number]['value'];

export interface VideoLibraryTableProps {
  videos: AdminVideo[];
  caption: string;
  /** The row being saved or deleted: its controls are disabled. */
  busyId?: string | null;
  onAccessLevel(video: AdminVideo, level: AccessLevelValue): void;
  onTogglePublished(video: AdminVideo): void;
  onDelete(video: AdminVideo): void;
  /** Queues a failed transcode again. */
  onRetryTranscode?(video: AdminVideo): void;
  /** Opens the video's caption tracks. */
  onCaptions?(video: AdminVideo): void;
  /** Opens the video's release settings (annual only, scheduled release). */
  onRelease?(video: AdminVideo): void;
  /** The screen's way to play the video as the admin (web: a link to its player page). */
  renderPreview?(video: AdminVideo): ReactNode;
}

/** The status cell: published or not, and the release markers. */
function Status({ video }: { video: AdminVideo }) {
  return (
    <div className="library-status">
      {video.published ? <StatusBadge tone="success">Published</StatusBadge> : <StatusBadge>Unpublished</StatusBadge>}
      {video.publishAt && isScheduled(video.publishAt) && <StatusBadge tone="warning">{scheduledText(video.publishAt)}</StatusBadge>}
      {video.exclusiveTo === 'annual' && <StatusBadge tone="brand">Annual only</StatusBadge>}
    </div>
  );
}

/** The transcode cell: what the member player will get. */
function Streaming({ video, busy, onRetry }: { video: AdminVideo; busy: boolean; onRetry?: (v: AdminVideo) => void }) {
  const t = video.transcode;
  if (!t) return <span className="muted">Original file</span>;
  if (t.status === 'completed') return <span className="transcode-qualities">{(video.qualities ?? []).join(' · ') || 'Ready'}</span>;
  if (t.status === 'failed')
    return (
      <div className="transcode-failed">
        <StatusBadge tone="danger">Transcode failed</StatusBadge>
        {t.error && (
          <small className="muted transcode-error" title={t.error}>
            {t.error.length > 120 ? `…${t.error.slice(-120)}` : t.error}
          </small>
        )}
        {onRetry && (
          <Button
            size="sm"
            variant="secondary"
            disabled={busy}
            onClick={() => onRetry(video)}
            aria-label={`Retry transcode of ${video.title}`}
          >
            Retry
          </Button>
        )}
      </div>
    );
  if (t.status === 'queued') return <StatusBadge>Queued for transcoding</StatusBadge>;
  return (
    <div className="transcode-progress">
      <progress max={100} value={t.progress} aria-label={`Transcoding ${video.title}`} />
      <small className="muted">{t.progress}%</small>
    </div>
  );
}

function details(v: AdminVideo): string {
  const specs = videoSpecs(v);
  const size = v.size ? formatFileSize(v.size) : '';
  return [specs, size].filter(Boolean).join(' · ');
}

export function VideoLibraryTable({
  videos,
  caption,
  busyId,
  onAccessLevel,
  onTogglePublished,
  onDelete,
  onRetryTranscode,
  onCaptions,
  onRelease,
  renderPreview,
}: VideoLibraryTableProps) {
  return (
    <DataTable
      caption={caption}
      rows={videos}
      rowKey={(v) => v.id}
      empty="No videos uploaded yet"
      columns={[
        { key: 'thumb', header: 'Thumbnail', render: (v) => <VideoThumbnail src={v.thumbnailPath} /> },
        {
          key: 'title',
          header: 'Title',
          render: (v) => (
            <div>
              <div className="library-title">{v.title}</div>
              {details(v) && <small className="muted">{details(v)}</small>}
            </div>
          ),
        },
        { key: 'model', header: 'Model', render: (v) => v.modelName || 'N/A' },
        { key: 'duration', header: 'Duration', render: (v) => formatDuration(v.duration) },
        {
          key: 'access',
          header: 'Access Level',
          render: (v) => (
            <select
              className="input input-sm"
              aria-label={`Access level of ${v.title}`}
              value={v.accessLevel}
              disabled={busyId === v.id}
              onChange={(e) => onAccessLevel(v, e.target.value as AccessLevelValue)}
            >
              {ACCESS_LEVEL_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          ),
        },
        {
          key: 'published',
          header: 'Status',
          render: (v) => <Status video={v} />,
        },
        {
          key: 'streaming',
          header: 'Streaming',
          render: (v) => <Streaming video={v} busy={busyId === v.id} onRetry={onRetryTranscode} />,
        },
        { key: 'views', header: 'Views', render: (v) => (v.viewCount ?? 0).toLocaleString('en-US') },
        { key: 'uploaded', header: 'Uploaded', render: (v) => formatDate(v.uploadedAt ?? v.publishedDate) },
        {
          key: 'actions',
          header: 'Actions',
          render: (v) => (
            <div className="row-actions">
              <Button
                size="sm"
                variant="secondary"
                disabled={busyId === v.id}
                onClick={() => onTogglePublished(v)}
                aria-label={`${v.published ? 'Unpublish' : 'Publish'} ${v.title}`}
              >
                {v.published ? 'Unpublish' : 'Publish'}
              </Button>
              {renderPreview?.(v)}
              {onRelease && (
                <Button
                  size="sm"
                  variant="secondary"
                  disabled={busyId === v.id}
                  onClick={() => onRelease(v)}
                  aria-label={`Release of ${v.title}`}
                >
                  Release
                </Button>
              )}
              {onCaptions && (
                <Button size="sm" variant="secondary" onClick={() => onCaptions(v)} aria-label={`Captions of ${v.title}`}>
                  Captions{v.captions?.length ? ` (${v.captions.length})` : ''}
                </Button>
              )}
              <Button size="sm" variant="danger" disabled={busyId === v.id} onClick={() => onDelete(v)} aria-label={`Delete ${v.title}`}>
                Delete
              </Button>
            </div>
          ),
        },
      ]}
    />
  );
}
