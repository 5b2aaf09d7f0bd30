/**
 * 'Video Library': every uploaded video, published or not (GET /admin/videos), ten to a page, with
 * access level, publish/unpublish (PUT /admin/videos/{id}) and delete after a confirmation
 * (DELETE /admin/videos/{id}), the HLS transcode's progress (polled while one is queued or running)
 * and a retry of a failed one (POST /admin/videos/{id}/transcode/retry), and each video's caption
 * tracks (VideoCaptions.tsx), its release (VideoReleaseForm.tsx: annual only, scheduled release) and
 * a preview the screen provides (`renderPreview`). Lives under the ['admin'] query key, so the dashboard's refresh
 * after an upload reloads it too.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import { adminKeys, adminQueries } from '../api/queries';
import type { AdminVideo, AdminVideoChanges, AdminVideoPage } from '../api/types';
import { errorText } from '../format/errorText';
import { accessLevelLabel, clampPage, pageCount } from '../format/library';
import { Button } from './Button';
import { Card } from './Card';
import { ConfirmDialog } from './ConfirmDialog';
import { Alert, Spinner } from './Feedback';
import { VideoCaptions } from './VideoCaptions';
import { VideoLibraryTable } from './VideoLibraryTable';
import { VideoReleaseForm } from './VideoReleaseForm';

export const LIBRARY_PAGE_SIZE = 10;
export const TRANSCODE_POLL_MS = 3000;

type Notice = { tone: 'success' | 'error'; text: string } | null;

function changeText(video: AdminVideo, changes: AdminVideoChanges): string {
  if (changes.published === true) return `Video "${video.title}" published`;
  if (changes.published === false) return `Video "${video.title}" unpublished`;
  if (changes.accessLevel) return `Access level of "${video.title}" changed to ${accessLevelLabel(changes.accessLevel)}`;
  if ('publishAt' in changes || 'exclusiveTo' in changes) return `Release of "${video.title}" saved`;
  return `Video "${video.title}" updated`;
}

export interface VideoLibraryProps {
  api: ApiClient;
  pageSize?: number;
  /** The screen's way to play a video as the admin (web: a link to its player page). */
  renderPreview?(video: AdminVideo): ReactNode;
}

export function VideoLibrary({ api, pageSize = LIBRARY_PAGE_SIZE, renderPreview }: VideoLibraryProps) {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<Notice>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<AdminVideo | null>(null);
  const [captionsOf, setCaptionsOf] = useState<string | null>(null);
  const [releaseOf, setReleaseOf] = useState<string | null>(null);
  const pageQuery = adminQueries(api).videoPage(page, pageSize);
  const key = pageQuery.queryKey;

  const list = useQuery({
    ...pageQuery,
    placeholderData: keepPreviousData,
    // The progress bars move while a transcode is queued or running.
    refetchInterval: (q) =>
      q.state.data?.videos.some((v) => v.transcode?.status === 'queued' || v.transcode?.status === 'running') ? TRANSCODE_POLL_MS : false,
  });
  const total = list.data?.total ?? 0;
  const pages = pageCount(total, pageSize);

  // A delete that empties the last page moves back a page.
  useEffect(() => {
    if (list.data && !list.isPlaceholderData) {
      const valid = clampPage(page, list.data.total, pageSize);
      if (valid !== page) setPage(valid);
    }
  }, [list.data, list.isPlaceholderData, page, pageSize]);

  const refresh = () => qc.invalidateQueries({ queryKey: adminKeys.videos });

  const update = useMutation({
    mutationFn: ({ video, changes }: { video: AdminVideo; changes: AdminVideoChanges }) => api.updateVideo(video.id, changes),
    onMutate: ({ video }) => setBusyId(video.id),
    onSuccess: (saved, { video, changes }) => {
      qc.setQueryData<AdminVideoPage>(key, (old) =>
        old && saved ? { ...old, videos: old.videos.map((v) => (v.id === video.id ? { ...v, ...saved } : v)) } : old,
      );
      setNotice({ tone: 'success', text: changeText(video, changes) });
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to update video') }),
    onSettled: () => {
      setBusyId(null);
      refresh();
    },
  });

  const remove = useMutation({
    mutationFn: (video: AdminVideo) => api.deleteVideo(video.id),
    onMutate: (video) => setBusyId(video.id),
    onSuccess: (_r, video) => setNotice({ tone: 'success', text: `Video "${video.title}" deleted` }),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to delete video') }),
    onSettled: () => {
      setBusyId(null);
      refresh();
    },
  });

  const retry = useMutation({
    mutationFn: (video: AdminVideo) => api.retryTranscode(video.id),
    onMutate: (video) => setBusyId(video.id),
    onSuccess: (_r, video) => setNotice({ tone: 'success', text: `Transcode of "${video.title}" queued again` }),
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to retry the transcode') }),
    onSettled: () => {
      setBusyId(null);
      refresh();
    },
  });

  return (
    <Card title="Video Library" className="admin-section video-library">
      {notice && (
        <Alert tone={notice.tone} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {list.error ? <Alert>{errorText(list.error, 'Failed to load videos')}</Alert> : null}
      {list.isPending ? (
        <Spinner label="Loading videos..." />
      ) : (
        <>
          <VideoLibraryTable
            videos={list.data?.videos ?? []}
            caption={`All Videos (${total})`}
            busyId={busyId}
            onAccessLevel={(video, accessLevel) => update.mutate({ video, changes: { accessLevel } })}
            onTogglePublished={(video) => update.mutate({ video, changes: { published: !video.published } })}
            onDelete={(video) => setDeleting(video)}
            onRetryTranscode={(video) => retry.mutate(video)}
            onCaptions={(video) => setCaptionsOf((open) => (open === video.id ? null : video.id))}
            onRelease={(video) => setReleaseOf((open) => (open === video.id ? null : video.id))}
            renderPreview={renderPreview}
          />
          {(() => {
            const video = list.data?.videos.find((v) => v.id === releaseOf);
            return video ? (
              <VideoReleaseForm
                key={video.id}
                video={video}
                busy={busyId === video.id}
                onSave={(changes) => update.mutate({ video, changes }, { onSuccess: () => setReleaseOf(null) })}
                onClose={() => setReleaseOf(null)}
              />
            ) : null;
          })()}
          {(() => {
            const video = list.data?.videos.find((v) => v.id === captionsOf);
            return video ? <VideoCaptions api={api} video={video} onChanged={refresh} /> : null;
          })()}
          {pages > 1 && (
            <nav className="pagination" aria-label="Video library pages">
              <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => setPage((p) => Math.max(1, p - 1))}>
                Previous
              </Button>
              <span aria-live="polite">
                Page {page} of {pages}
              </span>
              <Button size="sm" variant="secondary" disabled={page >= pages} onClick={() => setPage((p) => Math.min(pages, p + 1))}>
                Next
              </Button>
            </nav>
          )}
        </>
      )}

      <ConfirmDialog
        open={deleting !== null}
        title="Delete video"
        message="Are you sure you want to delete this video? This action cannot be undone."
        confirmLabel="Delete"
        danger
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          const v = deleting;
          setDeleting(null);
          if (v) remove.mutate(v);
        }}
      />
    </Card>
  );
}
