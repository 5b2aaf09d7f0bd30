/** The editable table of chosen files: local probe results, fields, and each upload's progress. */
import { Button } from '@members/ui';
import { formatDuration } from '@members/ui/format';
import { useState } from 'react';
import { ProgressLine } from './ProgressLine.js';
import { ACCESS_LEVELS, type BulkRow, formatBytes, OTHER_MODEL, type RowFields } from './rows.js';

export interface BulkTableProps {
  rows: BulkRow[];
  models: string[];
  onChange(id: string, patch: Partial<RowFields>): void;
  onSelect(id: string, selected: boolean): void;
  onRemove(id: string): void;
  onRetakeThumbnail(row: BulkRow, atSeconds: number): void;
  onControl(action: 'pause' | 'resume' | 'cancel' | 'retry', queueId: string): void;
}

const STATE_LABEL: Record<string, string> = {
  queued: 'Queued',
  uploading: 'Uploading',
  retrying: 'Retrying…',
  paused: 'Paused',
  completed: 'Uploaded',
  failed: 'Failed',
  canceled: 'Canceled',
};

function UploadCell({ row, onControl }: { row: BulkRow; onControl: BulkTableProps['onControl'] }) {
  const u = row.upload;
  if (row.probe === 'probing') return <span className="muted">Reading file…</span>;
  if (row.probe === 'error') return <span className="bulk-error">{row.error}</span>;
  if (!row.info?.isVideo)
    return (
      <span className="badge badge-danger" title={row.info?.reason}>
        Not a video — will not be sent
      </span>
    );
  if (!u || !row.queueId) return <span className="muted">Ready</span>;
  const id = row.queueId;
  return (
    <div className="bulk-upload-cell" data-state={u.state}>
      <span className={`badge ${u.state === 'completed' ? 'badge-success' : u.state === 'failed' ? 'badge-danger' : 'badge-info'}`}>
        {STATE_LABEL[u.state]}
      </span>
      {u.state !== 'completed' && u.state !== 'canceled' && (
        <ProgressLine label={`Upload progress for ${row.fileName}`} done={u.uploadedBytes} total={u.size} speed={u.speed} />
      )}
      {u.state === 'completed' && <span className="bulk-video-id">Video ID: {u.videoId}</span>}
      {u.state === 'completed' && u.captions && u.captions.added.length > 0 && (
        <span className="bulk-captions">Captions: {u.captions.added.join(', ')}</span>
      )}
      {u.state === 'completed' && u.captions && u.captions.failed.length > 0 && (
        <span className="bulk-error">Captions not added: {u.captions.failed.join('; ')}</span>
      )}
      {(u.state === 'failed' || u.state === 'retrying') && u.error && <span className="bulk-error">{u.error}</span>}
      <div className="row-actions">
        {(u.state === 'uploading' || u.state === 'queued' || u.state === 'retrying') && (
          <Button size="sm" variant="secondary" onClick={() => onControl('pause', id)}>
            Pause
          </Button>
        )}
        {u.state === 'paused' && (
          <Button size="sm" variant="secondary" onClick={() => onControl('resume', id)}>
            Resume
          </Button>
        )}
        {u.state === 'failed' && (
          <Button size="sm" variant="secondary" onClick={() => onControl('retry', id)}>
            Retry
          </Button>
        )}
        {u.state !== 'completed' && u.state !== 'canceled' && (
          <Button size="sm" variant="ghost" onClick={() => onControl('cancel', id)}>
            Cancel
          </Button>
        )}
      </div>
    </div>
  );
}

function ThumbnailCell({ row, onRetake }: { row: BulkRow; onRetake: (at: number) => void }) {
  const [at, setAt] = useState('');
  if (!row.info?.thumbnailDataUrl) return <div className="bulk-thumb bulk-thumb-empty" />;
  return (
    <div>
      <img className="bulk-thumb" src={row.info.thumbnailDataUrl} alt={`Thumbnail of ${row.fileName}`} />
      <div className="bulk-retake">
        <input
          aria-label={`Thumbnail time for ${row.fileName}`}
          className="input"
          type="number"
          min={0}
          step={0.1}
          max={row.info.durationSeconds}
          placeholder={`${(row.info.thumbnailAtSeconds ?? 0).toFixed(1)} s`}
          value={at}
          onChange={(e) => setAt(e.target.value)}
        />
        <Button size="sm" variant="ghost" disabled={at === ''} onClick={() => onRetake(Number(at))}>
          Take
        </Button>
      </div>
    </div>
  );
}

export function BulkTable({ rows, models, onChange, onSelect, onRemove, onRetakeThumbnail, onControl }: BulkTableProps) {
  const locked = (r: BulkRow) => Boolean(r.upload && r.upload.state !== 'canceled');
  const modelOptions = [...models, OTHER_MODEL];
  return (
    <div className="table-wrap">
      <table className="table bulk-table">
        <thead>
          <tr>
            <th>
              <input
                type="checkbox"
                aria-label="Select all rows"
                checked={rows.length > 0 && rows.every((r) => r.selected)}
                onChange={(e) => onSelect('*', e.target.checked)}
              />
            </th>
            <th>Thumbnail</th>
            <th>File</th>
            <th>Duration</th>
            <th>Title</th>
            <th>Model</th>
            <th>Access</th>
            <th>Tags</th>
            <th>Description</th>
            <th>Release</th>
            <th>Upload</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.id}
              data-testid="bulk-row"
              data-file={r.fileName}
              className={r.probe === 'done' && !r.info?.isVideo ? 'bulk-flagged' : undefined}
            >
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select ${r.fileName}`}
                  checked={r.selected}
                  onChange={(e) => onSelect(r.id, e.target.checked)}
                />
              </td>
              <td>
                <ThumbnailCell row={r} onRetake={(at) => onRetakeThumbnail(r, at)} />
              </td>
              <td>
                <div className="mono">{r.fileName}</div>
                {r.info && (
                  <div className="muted bulk-meta">
                    {formatBytes(r.info.size)}
                    {r.info.isVideo && ` · ${r.info.width}×${r.info.height} · ${r.info.codec}`}
                  </div>
                )}
              </td>
              <td data-testid="duration">{r.info?.isVideo ? formatDuration(r.info.durationSeconds) : '—'}</td>
              <td>
                <input
                  aria-label={`Title for ${r.fileName}`}
                  className="input"
                  value={r.title}
                  disabled={locked(r)}
                  onChange={(e) => onChange(r.id, { title: e.target.value })}
                />
              </td>
              <td>
                <select
                  aria-label={`Model for ${r.fileName}`}
                  className="input"
                  value={r.model}
                  disabled={locked(r)}
                  onChange={(e) => onChange(r.id, { model: e.target.value })}
                >
                  <option value="">Select Model</option>
                  {modelOptions.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <select
                  aria-label={`Access level for ${r.fileName}`}
                  className="input"
                  value={r.accessLevel}
                  disabled={locked(r)}
                  onChange={(e) => onChange(r.id, { accessLevel: e.target.value as RowFields['accessLevel'] })}
                >
                  {ACCESS_LEVELS.map((a) => (
                    <option key={a} value={a}>
                      {a}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <input
                  aria-label={`Tags for ${r.fileName}`}
                  className="input"
                  value={r.tags}
                  disabled={locked(r)}
                  onChange={(e) => onChange(r.id, { tags: e.target.value })}
                />
              </td>
              <td>
                <textarea
                  aria-label={`Description for ${r.fileName}`}
                  className="input"
                  rows={1}
                  value={r.description}
                  disabled={locked(r)}
                  onChange={(e) => onChange(r.id, { description: e.target.value })}
                />
              </td>
              <td className="bulk-release">
                <label className="checkbox">
                  <input
                    type="checkbox"
                    aria-label={`Annual plan only (behind the scenes): ${r.fileName}`}
                    checked={r.exclusiveTo === 'annual'}
                    disabled={locked(r)}
                    onChange={(e) => onChange(r.id, { exclusiveTo: e.target.checked ? 'annual' : '' })}
                  />{' '}
                  Annual only
                </label>
                <input
                  type="datetime-local"
                  aria-label={`Release at for ${r.fileName}`}
                  title="Release at (empty: at once)"
                  className="input"
                  value={r.publishAt}
                  disabled={locked(r)}
                  onChange={(e) => onChange(r.id, { publishAt: e.target.value })}
                />
              </td>
              <td className="bulk-status">
                <UploadCell row={r} onControl={onControl} />
              </td>
              <td>
                {!locked(r) && (
                  <Button size="sm" variant="ghost" aria-label={`Remove ${r.fileName}`} onClick={() => onRemove(r.id)}>
                    ×
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
