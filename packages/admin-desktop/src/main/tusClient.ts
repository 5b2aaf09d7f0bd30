/**
 * One attempt of a tus upload (tus-js-client, Node build) against the API's tus endpoint
 * (`/api/admin/uploads`, packages/api/src/uploads/index.ts). The upload queue runs attempts and
 * owns pause, back-off and retries; an attempt given the upload URL of an earlier one asks the
 * server its offset (HEAD) and sends only the rest. Plain Node, no Electron: the main process, the
 * dev bridge and the tests use it.
 */
import fs from 'node:fs';
import type { TusUploadMetadata } from '@members/ui/api';
import * as tus from 'tus-js-client';

export interface UploadMetadataInput {
  title: string;
  description?: string;
  model?: string;
  accessLevel?: string;
  tags?: string[];
  categories?: string[];
  durationText?: string;
}

export interface TusEndpoint {
  /** The server origin, e.g. http://127.0.0.1:8080 (a function so a changed server URL applies). */
  baseUrl: () => string;
  /** The bearer token to send. */
  accessToken: () => Promise<string | undefined> | string | undefined;
  /** Called on a 401; true when a new token was obtained and the attempt should be repeated. */
  refresh?: () => Promise<boolean>;
  /** Sees every answer (the tests record the offsets the server reports on resume). */
  onResponse?: (method: string, status: number, headers: { uploadOffset: string | undefined }) => void;
}

export class UploadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

export class AbortedError extends Error {
  constructor() {
    super('Aborted');
    this.name = 'AbortedError';
  }
}

/** Statuses worth trying again after a pause: the server is briefly unwell, busy or mid-restart. */
const RETRYABLE_STATUS = new Set([408, 409, 423, 425, 429, 500, 502, 503, 504]);

export const VIDEO_ID_HEADER = 'Upload-Video-Id';

export interface AttemptInput {
  filePath: string;
  fileName: string;
  metadata: UploadMetadataInput;
  /** Where the server takes the thumbnail frame (the one the admin picked in the console). */
  thumbnailAtSeconds?: number;
  /** The upload URL from an earlier attempt: resume it. */
  uploadUrl?: string;
  chunkSize: number;
}

export interface AttemptEvents {
  onUrl(url: string): void;
  /** `sent` is bytes put on the wire by this attempt since the last call; `offset` the absolute position. */
  onBytes(sent: number, offset: number): void;
  /** The server confirmed everything up to `offset`. */
  onConfirmed(offset: number): void;
}

/** Upload-Metadata pairs (tus-js-client base64-encodes the values). */
export function tusMetadata(input: Pick<AttemptInput, 'fileName' | 'metadata' | 'thumbnailAtSeconds'>): Record<string, string> {
  const m = input.metadata;
  const out: TusUploadMetadata = { filename: input.fileName, title: m.title };
  if (m.description) out.description = m.description;
  if (m.model) out.model = m.model;
  if (m.accessLevel) out.accessLevel = m.accessLevel;
  if (m.tags?.length) out.tags = m.tags.join(',');
  if (m.categories?.length) out.categories = m.categories.join(',');
  if (m.durationText) out.durationText = m.durationText;
  if (input.thumbnailAtSeconds !== undefined) out.thumbnailAtSeconds = String(Math.round(input.thumbnailAtSeconds * 1000) / 1000);
  return out as Record<string, string>;
}

/** The server's words for a refused request (the JSON envelope), or tus-js-client's. */
function describe(err: Error): UploadError {
  const detailed = err as tus.DetailedError;
  const res = detailed.originalResponse;
  if (!res) {
    const cause = (detailed.causingError as Error | undefined)?.message ?? err.message;
    return new UploadError(`Network error: ${cause}`, true);
  }
  const status = res.getStatus();
  let message = `The server refused the upload (HTTP ${status})`;
  try {
    const body = JSON.parse(res.getBody() ?? '') as { error?: string };
    if (body.error) message = body.error;
  } catch {
    const text = (res.getBody() ?? '').trim();
    if (text) message = text.slice(0, 200);
  }
  return new UploadError(message, RETRYABLE_STATUS.has(status), status);
}

function endpointOf(ep: TusEndpoint): string {
  return `${ep.baseUrl().replace(/\/+$/, '')}/api/admin/uploads`;
}

/**
 * Runs one attempt until the upload completes (→ the new video id), fails (→ UploadError) or the
 * signal aborts (→ AbortedError, the bytes the server has are kept).
 */
export function runTusAttempt(ep: TusEndpoint, input: AttemptInput, events: AttemptEvents, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AbortedError());
    let position: number | undefined;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    const upload = new tus.Upload(fs.createReadStream(input.filePath), {
      endpoint: endpointOf(ep),
      uploadUrl: input.uploadUrl ?? null,
      chunkSize: input.chunkSize,
      metadata: tusMetadata(input),
      // The queue keeps the URL and does the back-off itself.
      retryDelays: null,
      storeFingerprintForResuming: false,
      async onBeforeRequest(req) {
        const token = await ep.accessToken();
        if (token) req.setHeader('Authorization', `Bearer ${token}`);
        if (req.getMethod() === 'PATCH') position = Number(req.getHeader('Upload-Offset'));
      },
      onAfterResponse(req, res) {
        ep.onResponse?.(req.getMethod(), res.getStatus(), { uploadOffset: res.getHeader('Upload-Offset') });
      },
      onUploadUrlAvailable() {
        if (upload.url) events.onUrl(upload.url);
      },
      onProgress(bytesUploaded) {
        // A paused attempt is over: bytes of the aborted request no longer count.
        if (settled || position === undefined || bytesUploaded <= position) return;
        const sent = bytesUploaded - position;
        position = bytesUploaded;
        events.onBytes(sent, bytesUploaded);
      },
      onChunkComplete(_chunk, accepted) {
        if (!settled) events.onConfirmed(accepted);
      },
      onSuccess({ lastResponse }) {
        const videoId = lastResponse.getHeader(VIDEO_ID_HEADER);
        settle(() =>
          videoId ? resolve(videoId) : reject(new UploadError('The server has the whole file but named no video; trying again', true)),
        );
      },
      onError(err) {
        settle(() => reject(describe(err)));
      },
    });
    function onAbort() {
      void upload.abort(false).catch(() => {});
      settle(() => reject(new AbortedError()));
    }
    signal.addEventListener('abort', onAbort, { once: true });
    upload.start();
  });
}

/** Asks the server to drop an upload (tus termination). */
export async function terminateUpload(ep: TusEndpoint, url: string): Promise<void> {
  const token = await ep.accessToken();
  await tus.Upload.terminate(url, {
    retryDelays: null,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}
