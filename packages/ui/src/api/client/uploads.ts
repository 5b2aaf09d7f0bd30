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

/**
 * A tus attempt's end without a video: `refused` (the server's answer in `status` and `body`),
 * `network` (no answer), `unnamed` (the server has the file but named no video) or `aborted`.
 */
export class TusAttemptError extends Error {
  constructor(
    readonly kind: 'refused' | 'network' | 'unnamed' | 'aborted',
    readonly status: number,
    readonly body: Envelope,
  ) {
    super(body.error || `Upload failed (${status})`);
    this.name = 'TusAttemptError';
  }

  /** Worth trying again after a pause: no answer, or the server briefly unwell, busy or mid-restart. */
  get retryable(): boolean {
    return this.kind !== 'refused' || TUS_RETRYABLE_STATUS.has(this.status);
  }
}

export interface TusAttemptOptions {
  /** A Blob in the browser; a Node stream of the file in the desktop's main process. */
  source: TusSource;
  /** The API's base URL: the tus endpoint is under it (`/admin/uploads`). */
  endpoint: string;
  metadata: Record<string, string>;
  /** The bearer token for each request (refreshed first when it is about to expire). */
  bearer: () => Promise<string | null | undefined>;
  /** An earlier attempt's upload URL: the server is asked its offset (HEAD) and only the rest is sent. */
  uploadUrl?: string | null;
  chunkSize?: number;
  /** tus-js-client's own retries (null: none, the caller backs off). */
  retryDelays: number[] | null;
  /** Which failures its own retries try again (by HTTP status, 0 for none). */
  shouldRetry?: (status: number) => boolean;
  storeFingerprintForResuming?: boolean;
  /** Before each request: its method and the Upload-Offset it sends (PATCH). */
  onRequest?: (method: string, uploadOffset: string | undefined) => void;
  /** After each answer: its status and Upload-Offset. */
  onResponse?: (method: string, status: number, uploadOffset: string | undefined) => void;
  onUrl?: (url: string) => void;
  onProgress?: (bytesUploaded: number, bytesTotal: number) => void;
  onChunkComplete?: (accepted: number) => void;
  /** Aborting keeps the bytes the server has (the upload can be resumed) and rejects with `aborted`. */
  signal?: AbortSignal;
}

type TusSource = ConstructorParameters<typeof import('tus-js-client').Upload>[0];

/**
 * One tus upload with tus-js-client (loaded on first use; its Node build in the desktop): resolves
 * with the new video's id (the last answer's `Upload-Video-Id`) or rejects with a TusAttemptError.
 * The web app lets tus-js-client retry; the desktop's queue runs attempts and backs off itself.
 */
export async function tusAttempt(o: TusAttemptOptions): Promise<string> {
  const { Upload } = await import('tus-js-client');
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) return reject(new TusAttemptError('aborted', 0, { error: 'Aborted' }));
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const upload = new Upload(o.source, {
      endpoint: o.endpoint,
      uploadUrl: o.uploadUrl ?? null,
      ...(o.chunkSize ? { chunkSize: o.chunkSize } : {}),
      metadata: o.metadata,
      retryDelays: o.retryDelays,
      ...(o.storeFingerprintForResuming === false ? { storeFingerprintForResuming: false } : {}),
      ...(o.shouldRetry ? { onShouldRetry: (err) => o.shouldRetry?.(err.originalResponse?.getStatus() ?? 0) ?? false } : {}),
      async onBeforeRequest(req) {
        const token = await o.bearer();
        if (token) req.setHeader('Authorization', `Bearer ${token}`);
        o.onRequest?.(req.getMethod(), req.getHeader('Upload-Offset'));
      },
      onAfterResponse: (req, res) => o.onResponse?.(req.getMethod(), res.getStatus(), res.getHeader('Upload-Offset')),
      onUploadUrlAvailable() {
        if (upload.url) o.onUrl?.(upload.url);
      },
      onProgress: (sent, total) => {
        if (!settled) o.onProgress?.(sent, total);
      },
      onChunkComplete: (_chunk, accepted) => {
        if (!settled) o.onChunkComplete?.(accepted);
      },
      onSuccess: ({ lastResponse }) => {
        const videoId = lastResponse.getHeader(VIDEO_ID_HEADER);
        settle(() =>
          videoId
            ? resolve(videoId)
            : reject(new TusAttemptError('unnamed', 0, { error: 'The server has the whole file but named no video' })),
        );
      },
      onError: (err) => {
        const refusal = tusRefusal(err);
        const cause = (err as { causingError?: Error }).causingError?.message ?? err.message;
        settle(() =>
          reject(
            refusal
              ? new TusAttemptError('refused', refusal.status, refusal.body)
              : new TusAttemptError('network', 0, { error: `Network error: ${cause}` }),
          ),
        );
      },
    });
    function onAbort() {
      void upload.abort(false).catch(() => {});
      settle(() => reject(new TusAttemptError('aborted', 0, { error: 'Aborted' })));
    }
    o.signal?.addEventListener('abort', onAbort, { once: true });
    upload.start();
  });
}

/** Asks the server to drop an upload (tus termination). */
export async function tusTerminate(url: string, bearer: () => Promise<string | null | undefined>): Promise<void> {
  const { Upload } = await import('tus-js-client');
  const token = await bearer();
  await Upload.terminate(url, { retryDelays: null, headers: token ? { Authorization: `Bearer ${token}` } : {} });
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
      exclusiveTo: payload.exclusiveTo ?? undefined,
      publishAt: payload.publishAt ?? undefined,
    });
    try {
      const videoId = await tusAttempt({
        source: file,
        endpoint: transport.url(TUS_PATH),
        metadata,
        bearer: async () => {
          await calls.ensureFresh();
          return transport.session.get().token;
        },
        // About three minutes of trying before giving up.
        retryDelays: [0, 1000, 2000, 4000, 8000, 15000, 30000, 30000, 30000, 60000],
        // Retry network failures even while the browser reports offline (it comes back); not refusals.
        shouldRetry: (status) => status === 0 || status >= 500 || status === 409 || status === 423 || status === 429,
        onProgress: (sent, total) => onProgress?.(total ? sent / total : 0),
      });
      return { videoId };
    } catch (err) {
      if (!(err instanceof TusAttemptError)) throw err;
      const body =
        err.kind === 'network'
          ? { error: 'Network error during upload. Please try again.' }
          : err.kind === 'unnamed'
            ? { error: 'The server named no video' }
            : err.body;
      return transport.fail(err.status, body, { fallbackError: 'Failed to upload video' });
    }
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
    if (payload.exclusiveTo) form.set('exclusiveTo', payload.exclusiveTo);
    if (payload.publishAt) form.set('publishAt', payload.publishAt);
    // Text fields first, files last: the server streams the files as they arrive.
    form.set('video', payload.video);
    if (payload.thumbnail) form.set('thumbnail', payload.thumbnail);
    return upload<{ videoId: string }>('/admin/upload-video', form, onProgress, 'Failed to upload video');
  }

  return { upload, uploadVideo };
}
