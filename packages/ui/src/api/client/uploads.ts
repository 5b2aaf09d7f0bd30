/**
 * Uploads: the video over tus (`/api/admin/uploads`, tus-js-client loaded on first use) or, with a
 * thumbnail file, as one multipart POST through XMLHttpRequest for its progress events. The tus
 * metadata and the reading of a tus refusal are exported for the desktop's queue, which drives
 * tus-js-client from Node with its own pause and back-off.
 */
import type { TusUploadMetadata, UploadVideoPayload } from '../types';
import type { Calls } from './session';
import { ApiError, type Envelope, type Exchange, parseEnvelope, UPLOAD_TIMEOUT_MS } from './transport';

/** The header of the last tus answer that names the new video. */
export const VIDEO_ID_HEADER = 'Upload-Video-Id';

/** The tus endpoint under the API's base URL. */
export const TUS_PATH = '/admin/uploads';

/** Statuses a tus upload tries again after a pause: the server is briefly unwell, busy or mid-restart. */
export const TUS_RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 409, 423, 425, 429, 500, 502, 503, 504]);

/** Upload-Metadata pairs with the empty values left out (the server treats a missing key as not given). */
export function tusMetadata(fields: TusUploadMetadata): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string' && Boolean(e[1].trim())));
}

/** What tus-js-client's onError gives: the server's answer when there was one. */
interface TusFailure {
  originalResponse?: { getStatus(): number; getBody(): string | undefined } | null;
}

/** A tus refusal as status and envelope; status 0 (network) when the server gave no answer. */
export function tusRefusal(err: unknown): Exchange | undefined {
  const res = (err as TusFailure).originalResponse;
  if (!res) return undefined;
  const status = res.getStatus();
  return { status, body: parseEnvelope(res.getBody() || '{}', `Upload failed (${status})`) };
}

export function createUploads(calls: Calls, uploadTimeoutMs = UPLOAD_TIMEOUT_MS) {
  const { transport } = calls;

  /** A multipart upload through XMLHttpRequest, for its progress events (300 s timeout). */
  async function upload<T>(path: string, form: FormData, onProgress?: (fraction: number) => void, fallbackError?: string): Promise<T> {
    await calls.ensureFresh();
    const answer = await new Promise<Exchange>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', transport.url(path));
      xhr.timeout = uploadTimeoutMs;
      xhr.withCredentials = true;
      for (const [k, v] of Object.entries(transport.headers(false))) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total);
      };
      xhr.onload = () => resolve({ status: xhr.status, body: parseEnvelope(xhr.responseText, `Upload failed (${xhr.status})`) });
      xhr.onerror = () => reject(new ApiError(0, 'Network error during upload. Please try again.'));
      xhr.ontimeout = () => reject(new ApiError(0, 'The upload timed out. Please try again.'));
      xhr.send(form);
    });
    return transport.unwrap<T>(answer, { fallbackError });
  }

  /**
   * The video over tus: a dropped connection or a server restart is retried with back-off and
   * resumes from the server's offset. The last answer's `Upload-Video-Id` names the new video.
   */
  async function tusUpload(payload: UploadVideoPayload, onProgress?: (fraction: number) => void): Promise<{ videoId: string }> {
    const { Upload } = await import('tus-js-client');
    const file = payload.video;
    const metadata = tusMetadata({
      filename: file instanceof File && file.name ? file.name : 'video',
      title: payload.title,
      description: payload.description,
      model: payload.model,
      durationText: payload.duration,
      accessLevel: payload.accessLevel,
      tags: payload.tags,
      categories: payload.categories,
    });
    const outcome = await new Promise<{ ok: true; videoId: string } | { ok: false; status: number; body: Envelope }>((resolve) => {
      const upload = new Upload(file, {
        endpoint: transport.url(TUS_PATH),
        metadata,
        // About three minutes of trying before giving up.
        retryDelays: [0, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000, 60000],
        // Retry network failures even while the browser reports offline (it comes back); not refusals.
        onShouldRetry: (err) => {
          const status = err.originalResponse?.getStatus() ?? 0;
          return status === 0 || status >= 500 || status === 409 || status === 423 || status === 429;
        },
        async onBeforeRequest(req) {
          await calls.ensureFresh();
          const fresh = transport.session.get().token;
          if (fresh) req.setHeader('Authorization', `Bearer ${fresh}`);
        },
        onProgress: (sent, total) => onProgress?.(total ? sent / total : 0),
        onSuccess: ({ lastResponse }) => {
          const videoId = lastResponse.getHeader(VIDEO_ID_HEADER);
          resolve(videoId ? { ok: true, videoId } : { ok: false, status: 0, body: { error: 'The server named no video' } });
        },
        onError: (err) =>
          resolve({ ok: false, ...(tusRefusal(err) ?? { status: 0, body: { error: 'Network error during upload. Please try again.' } }) }),
      });
      upload.start();
    });
    if (!outcome.ok) return transport.fail(outcome.status, outcome.body, { fallbackError: 'Failed to upload video' });
    return { videoId: outcome.videoId };
  }

  /** The admin's video upload: tus when everything fits in its metadata, multipart with a thumbnail file. */
  function uploadVideo(payload: UploadVideoPayload, onProgress?: (fraction: number) => void): Promise<{ videoId: string }> {
    // Without a thumbnail file everything fits in tus metadata: resumable, survives a dropped connection.
    if (!payload.thumbnail) return tusUpload(payload, onProgress);
    const form = new FormData();
    form.set('title', payload.title);
    form.set('description', payload.description);
    form.set('model', payload.model);
    form.set('duration', payload.duration);
    if (payload.accessLevel) form.set('accessLevel', payload.accessLevel);
    if (payload.tags) form.set('tags', payload.tags);
    if (payload.categories) form.set('categories', payload.categories);
    // Text fields first, files last: the server streams the files as they arrive.
    form.set('video', payload.video);
    if (payload.thumbnail) form.set('thumbnail', payload.thumbnail);
    return upload<{ videoId: string }>('/admin/upload-video', form, onProgress, 'Failed to upload video');
  }

  return { upload, uploadVideo };
}
