/**
 * The bulk upload screen: choose files or drop a folder, see each file probed locally (duration,
 * resolution, codec, thumbnail) before anything is sent, edit the rows one by one or for a
 * selection, then upload through the main process's queue with live progress.
 */
import { Alert, Button, Card } from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import { type DragEvent, useEffect, useRef, useState } from 'react';
import type { DesktopApi, QueueSnapshot } from '../../shared/ipc.js';
import { useSite } from '../useSite.js';
import { BulkEditBar } from './BulkEditBar.js';
import { BulkTable } from './BulkTable.js';
import { ProgressLine } from './ProgressLine.js';
import { applyToRow, applyToSelected, type BulkRow, isSendable, isVideoRow, metadataOf, newRow } from './rows.js';

const INSPECT_CONCURRENCY = 2;

export function BulkUpload({ desktop, api }: { desktop: DesktopApi; api: ApiClient }) {
  const { models } = useSite(api);
  const [rows, setRows] = useState<BulkRow[]>([]);
  const [snapshot, setSnapshot] = useState<QueueSnapshot | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

  // Queue progress from the main process → each row's upload column.
  useEffect(() => {
    const apply = (s: QueueSnapshot) => {
      setSnapshot(s);
      setRows((current) => current.map((r) => ({ ...r, upload: s.items.find((i) => i.id === r.queueId) ?? r.upload })));
    };
    const stop = desktop.uploads.onChange(apply);
    desktop.uploads.snapshot().then(apply, () => {});
    return stop;
  }, [desktop]);

  async function inspect(row: BulkRow, thumbnailAtSeconds?: number) {
    try {
      const info = await desktop.media.inspect({ path: row.path, thumbnailAtSeconds });
      setRows((rs) => rs.map((r) => (r.id === row.id ? { ...r, probe: 'done', info } : r)));
    } catch (err) {
      setRows((rs) => rs.map((r) => (r.id === row.id ? { ...r, probe: 'error', error: (err as Error).message } : r)));
    }
  }

  async function addPaths(paths: string[]) {
    const known = new Set(rowsRef.current.map((r) => r.path));
    const fresh = paths.filter((p) => !known.has(p)).map(newRow);
    if (!fresh.length) return;
    setRows((rs) => [...rs, ...fresh]);
    // Probe a few at a time: ffmpeg runs in the main process.
    const pending = [...fresh];
    const worker = async () => {
      for (let row = pending.shift(); row; row = pending.shift()) await inspect(row);
    };
    await Promise.all(Array.from({ length: INSPECT_CONCURRENCY }, worker));
  }

  async function choose(folders: boolean) {
    setNotice(null);
    try {
      await addPaths(await desktop.files.choose({ folders }));
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  async function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    const paths = [...e.dataTransfer.files].map((f) => desktop.files.pathOf(f)).filter((p): p is string => Boolean(p));
    if (!paths.length) {
      setNotice('Dropped files have no location here: use Choose files.');
      return;
    }
    try {
      await addPaths(await desktop.files.expand({ paths }));
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  async function uploadAll() {
    setNotice(null);
    const sendable = rows.filter(isSendable);
    if (!sendable.length) return;
    const queued = sendable.map((r) => ({ row: r, queueId: `${r.id}-${r.sends + 1}` }));
    setRows((rs) =>
      rs.map((r) => {
        const q = queued.find((x) => x.row.id === r.id);
        return q ? { ...r, queueId: q.queueId, sends: r.sends + 1, upload: undefined } : r;
      }),
    );
    try {
      await desktop.uploads.add({
        items: queued.map(({ row, queueId }) => ({
          id: queueId,
          path: row.path,
          metadata: metadataOf(row),
          thumbnailAtSeconds: row.info?.thumbnailAtSeconds,
        })),
      });
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  const control = (action: 'pause' | 'resume' | 'cancel' | 'retry', queueId: string) =>
    desktop.uploads.control({ action, id: queueId }).catch((err: Error) => setNotice(err.message));

  const videos = rows.filter(isVideoRow).length;
  const flagged = rows.filter((r) => r.probe === 'done' && !r.info?.isVideo).length;
  const sendable = rows.filter(isSendable).length;
  const active = (snapshot?.active ?? 0) > 0;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop target only; the Choose buttons do the same by keyboard
    <div
      className={`bulk ${dragging ? 'bulk-dragging' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <Card
        title="Bulk Upload"
        actions={
          <div className="row-actions">
            <Button variant="secondary" onClick={() => choose(false)}>
              Choose files
            </Button>
            <Button variant="secondary" onClick={() => choose(true)}>
              Choose folder
            </Button>
          </div>
        }
      >
        <p className="muted">
          Drop videos or a folder here. Each file is read locally by ffprobe (duration, resolution, codec) and gets a thumbnail before
          anything is sent; files that are not videos are flagged and never sent.
        </p>
        {notice && <Alert onDismiss={() => setNotice(null)}>{notice}</Alert>}
        <p aria-live="polite" data-testid="bulk-summary">
          {rows.length} files · {videos} videos · {flagged} not videos
        </p>
        {rows.length > 0 && (
          <>
            <BulkEditBar
              models={models}
              selected={rows.filter((r) => r.selected).length}
              onApply={(patch) => setRows((rs) => applyToSelected(rs, patch))}
            />
            <BulkTable
              rows={rows}
              models={models}
              onChange={(id, patch) => setRows((rs) => applyToRow(rs, id, patch))}
              onSelect={(id, selected) => setRows((rs) => rs.map((r) => (id === '*' || r.id === id ? { ...r, selected } : r)))}
              onRemove={(id) => setRows((rs) => rs.filter((r) => r.id !== id))}
              onRetakeThumbnail={(row, at) => inspect(row, at)}
              onControl={control}
            />
          </>
        )}
        <div className="bulk-footer">
          <Button onClick={uploadAll} disabled={!sendable}>
            {`Upload ${sendable} ${sendable === 1 ? 'video' : 'videos'}`}
          </Button>
          {active && (
            <Button variant="secondary" onClick={() => desktop.uploads.controlAll({ action: 'pause' })}>
              Pause all
            </Button>
          )}
          {snapshot?.items.some((i) => i.state === 'paused') && (
            <Button variant="secondary" onClick={() => desktop.uploads.controlAll({ action: 'resume' })}>
              Resume all
            </Button>
          )}
        </div>
        {snapshot && snapshot.items.length > 0 && (
          <div className="bulk-overall">
            <strong>Overall</strong>
            <ProgressLine
              label="Overall upload progress"
              done={snapshot.uploadedBytes}
              total={snapshot.totalBytes}
              speed={snapshot.speed}
            />
            <span className="muted">
              {snapshot.items.filter((i) => i.state === 'completed').length} of{' '}
              {snapshot.items.filter((i) => i.state !== 'canceled').length} done
            </span>
          </div>
        )}
      </Card>
    </div>
  );
}
