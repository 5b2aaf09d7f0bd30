/**
 * One attempt of a tus upload from the desktop's main process: the shared tus driver of
 * @members/ui (`tusAttempt`, tus-js-client's Node build, the same one the web app's uploads use)
 * fed the file streamed from disk, against the API's tus endpoint (`/api/admin/uploads`). The
 * upload queue runs attempts and owns pause, back-off and retries; an attempt given the upload URL
 * of an earlier one asks the server its offset (HEAD) and sends only the rest. Plain Node, no
 * Electron: the main process, the dev bridge and the tests use it.
 */
import fs from 'node:fs';
import {
  tusMetadata as sharedTusMetadata,
  TUS_PATH,
  TusAttemptError,
  type TusUploadMetadata,
  tusAttempt,
  tusTerminate,
} from '@members/ui/api';

export interface UploadMetadataInput {
  title: string;
  description?: string;
  model?: string;
  accessLevel?: string;
  tags?: string[];
  categories?: string[];
  durationText?: string;
  exclusiveTo?: string;
  /** ISO 8601 with an offset. */
  publishAt?: string;
}

export interface TusEndpoint {
  /** The server origin, e.g. http://127.0.0.1:8080 (a function so a changed server URL applies). */
  baseUrl: () => string;
  /** The bearer token to send (the session refreshes it first when it is about to expire). */
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
  const fields: TusUploadMetadata = {
    filename: input.fileName,
    title: m.title,
    description: m.description,
    model: m.model,
    accessLevel: m.accessLevel,
    tags: m.tags?.join(','),
    categories: m.categories?.join(','),
    durationText: m.durationText,
    exclusiveTo: m.exclusiveTo,
    publishAt: m.publishAt,
    thumbnailAtSeconds: input.thumbnailAtSeconds === undefined ? undefined : String(Math.round(input.thumbnailAtSeconds * 1000) / 1000),
  };
  return sharedTusMetadata(fields);
}

const endpointOf = (ep: TusEndpoint) => `${ep.baseUrl().replace(/\/+$/, '')}/api${TUS_PATH}`;
const bearerOf = (ep: TusEndpoint) => async () => (await ep.accessToken()) ?? undefined;

/** The queue's terms for a failed attempt: the server's words and whether to try again. */
function toQueueError(err: unknown): Error {
  if (!(err instanceof TusAttemptError)) return err as Error;
  if (err.kind === 'aborted') return new AbortedError();
  if (err.kind !== 'refused') return new UploadError(err.message, true);
  return new UploadError(err.body.error || `The server refused the upload (HTTP ${err.status})`, err.retryable, err.status);
}

/**
 * Runs one attempt until the upload completes (→ the new video id), fails (→ UploadError) or the
 * signal aborts (→ AbortedError, the bytes the server has are kept).
 */
export async function runTusAttempt(ep: TusEndpoint, input: AttemptInput, events: AttemptEvents, signal: AbortSignal): Promise<string> {
  if (signal.aborted) throw new AbortedError();
  let position: number | undefined;
  try {
    return await tusAttempt({
      source: fs.createReadStream(input.filePath),
      endpoint: endpointOf(ep),
      uploadUrl: input.uploadUrl,
      chunkSize: input.chunkSize,
      metadata: tusMetadata(input),
      bearer: bearerOf(ep),
      // The queue keeps the URL and does the back-off itself.
      retryDelays: null,
      storeFingerprintForResuming: false,
      onRequest: (method, offset) => {
        if (method === 'PATCH') position = Number(offset);
      },
      onResponse: (method, status, uploadOffset) => ep.onResponse?.(method, status, { uploadOffset }),
      onUrl: events.onUrl,
      onProgress(bytesUploaded) {
        // A paused attempt is over: bytes of the aborted request no longer count.
        if (position === undefined || bytesUploaded <= position) return;
        const sent = bytesUploaded - position;
        position = bytesUploaded;
        events.onBytes(sent, bytesUploaded);
      },
      onChunkComplete: events.onConfirmed,
      signal,
    });
  } catch (err) {
    throw toQueueError(err);
  }
}

/** Asks the server to drop an upload (tus termination). */
export function terminateUpload(ep: TusEndpoint, url: string): Promise<void> {
  return tusTerminate(url, bearerOf(ep));
}
