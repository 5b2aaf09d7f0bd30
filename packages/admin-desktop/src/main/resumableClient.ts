/**
 * The client side of the server's resumable upload protocol (packages/api/src/uploads/index.ts):
 * create, ask the offset (HEAD), append a chunk (PATCH, streamed from the file with byte-level
 * progress), cancel. Plain Node (http/https), no Electron: the upload queue, the main process and
 * the dev bridge all use it. Errors say whether trying again can help (`retryable`).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';

export interface UploadMetadataInput {
  title: string;
  description?: string;
  model?: string;
  accessLevel?: string;
  tags?: string[];
  categories?: string[];
  durationText?: string;
}

export interface CreateUploadInput {
  fileName: string;
  size: number;
  metadata: UploadMetadataInput;
  /** Base64 JPEG, at most 2 MB. */
  thumbnail?: string;
}

export interface ServerUpload {
  uploadId: string;
  offset: number;
  size: number;
  status?: 'open' | 'completed' | 'failed' | 'canceled';
  videoId?: string | null;
  error?: string | null;
}

export interface ChunkToSend {
  filePath: string;
  offset: number;
  length: number;
}

/** What the upload queue needs from a server; `createHttpTransport` is the real one. */
export interface UploadTransport {
  create(input: CreateUploadInput, signal?: AbortSignal): Promise<ServerUpload>;
  status(uploadId: string, signal?: AbortSignal): Promise<ServerUpload>;
  send(uploadId: string, chunk: ChunkToSend, onBytes: (n: number) => void, signal?: AbortSignal): Promise<ServerUpload>;
  cancel(uploadId: string): Promise<void>;
}

export class UploadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The server's offset when it told us (409 offset mismatch). */
    readonly offset?: number,
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

export interface HttpTransportOptions {
  /** The server origin, e.g. http://127.0.0.1:8080 (a function so a changed server URL applies). */
  baseUrl: string | (() => string);
  /** The bearer token to send. */
  accessToken: () => Promise<string | undefined> | string | undefined;
  /** Called once on a 401; true when a new token was obtained and the call should be repeated. */
  refresh?: () => Promise<boolean>;
  /** Per-request socket inactivity timeout (ms). */
  timeoutMs?: number;
}

/** Statuses worth trying again after a pause: the server is briefly unwell or busy. */
const RETRYABLE_STATUS = new Set([408, 409, 423, 425, 429, 500, 502, 503, 504]);

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { success?: boolean; data?: unknown; error?: string; details?: unknown } | undefined;
}

function origin(opts: HttpTransportOptions): string {
  const b = typeof opts.baseUrl === 'function' ? opts.baseUrl() : opts.baseUrl;
  return b.replace(/\/+$/, '');
}

/**
 * One HTTP exchange; `body` may be a JSON value or a file range streamed with progress.
 * Network failures become retryable `UploadError`s; an abort becomes `AbortedError`.
 */
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: { json: unknown } | { file: ChunkToSend; onBytes: (n: number) => void } | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError());
    const lib = url.protocol === 'https:' ? https : http;
    let payload: Buffer | undefined;
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (body && 'json' in body) {
      payload = Buffer.from(JSON.stringify(body.json));
      h['content-type'] = 'application/json';
      h['content-length'] = String(payload.length);
    } else if (body) {
      h['content-length'] = String(body.file.length);
    }
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = lib.request(url, { method, headers: h, agent: false });
    let source: fs.ReadStream | undefined;
    function onAbort() {
      source?.destroy();
      req.destroy();
      settle(() => reject(new AbortedError()));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`No answer within ${timeoutMs} ms`)));
    req.on('error', (err) => {
      source?.destroy();
      settle(() => reject(new UploadError(`Network error: ${err.message}`, true)));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => settle(() => reject(new UploadError(`Network error: ${err.message}`, true))));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: RawAnswer['body'];
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = { success: false, error: `Unexpected answer (${res.statusCode}): ${text.slice(0, 120)}` };
        }
        settle(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed }));
      });
    });
    if (!body || 'json' in body) {
      req.end(payload);
      return;
    }
    const { file, onBytes } = body;
    if (file.length === 0) {
      req.end();
      return;
    }
    source = fs.createReadStream(file.filePath, { start: file.offset, end: file.offset + file.length - 1, highWaterMark: 64 * 1024 });
    source.on('data', (c) => onBytes(c.length));
    source.on('error', (err) => {
      req.destroy();
      settle(() => reject(new UploadError(`Could not read ${file.filePath}: ${err.message}`, false)));
    });
    source.pipe(req);
  });
}

function toServerUpload(answer: RawAnswer, fallbackId: string): ServerUpload {
  const d = (answer.body?.data ?? {}) as Partial<ServerUpload>;
  const headerOffset = Number(answer.headers['upload-offset']);
  const headerSize = Number(answer.headers['upload-length']);
  return {
    uploadId: d.uploadId ?? fallbackId,
    offset: typeof d.offset === 'number' ? d.offset : headerOffset,
    size: typeof d.size === 'number' ? d.size : headerSize,
    status: d.status,
    videoId: d.videoId ?? null,
    error: d.error ?? null,
  };
}

function errorOf(answer: RawAnswer, what: string): UploadError {
  const message = answer.body?.error ?? `${what} failed (HTTP ${answer.status})`;
  const details = answer.body?.details as { offset?: number } | undefined;
  const offset = typeof details?.offset === 'number' ? details.offset : undefined;
  // A 409 for a finished or failed upload is final; an offset mismatch or a busy upload is not.
  const final409 = answer.status === 409 && offset === undefined && !/writing this upload/.test(message);
  return new UploadError(message, RETRYABLE_STATUS.has(answer.status) && !final409, answer.status, offset);
}

/**
 * The real transport over HTTP(S).
 * @example const t = createHttpTransport({ baseUrl: 'http://127.0.0.1:8080', accessToken: () => token });
 */
export function createHttpTransport(opts: HttpTransportOptions): UploadTransport {
  const timeoutMs = opts.timeoutMs ?? 60_000;

  async function call(
    method: string,
    path: string,
    body: Parameters<typeof exchange>[3],
    signal: AbortSignal | undefined,
    extraHeaders: Record<string, string> = {},
  ): Promise<RawAnswer> {
    for (let attempt = 0; ; attempt++) {
      const token = await opts.accessToken();
      const headers: Record<string, string> = { ...extraHeaders };
      if (token) headers.authorization = `Bearer ${token}`;
      const answer = await exchange(new URL(`${origin(opts)}/api${path}`, 'http://x'), method, headers, body, signal, timeoutMs);
      if (answer.status === 401 && attempt === 0 && opts.refresh && (await opts.refresh())) continue;
      return answer;
    }
  }

  return {
    async create(input, signal) {
      const answer = await call('POST', '/admin/uploads', { json: input }, signal);
      if (answer.status !== 201 && answer.status !== 200) throw errorOf(answer, 'Starting the upload');
      return toServerUpload(answer, '');
    },
    async status(uploadId, signal) {
      const path = `/admin/uploads/${encodeURIComponent(uploadId)}`;
      const head = await call('HEAD', path, undefined, signal);
      if (head.status !== 200) {
        // HEAD has no body: ask again with GET to read the server's message.
        const got = await call('GET', path, undefined, signal);
        throw errorOf(got.status === 200 ? head : got, 'Asking the upload offset');
      }
      const offset = Number(head.headers['upload-offset']);
      const size = Number(head.headers['upload-length']);
      if (offset < size) return { uploadId, offset, size, status: 'open' };
      // Complete (or about to be): the JSON answer says whether it became a video.
      const got = await call('GET', path, undefined, signal);
      if (got.status !== 200) throw errorOf(got, 'Asking the upload offset');
      return toServerUpload(got, uploadId);
    },
    async send(uploadId, chunk, onBytes, signal) {
      const answer = await call('PATCH', `/admin/uploads/${encodeURIComponent(uploadId)}`, { file: chunk, onBytes }, signal, {
        'content-type': 'application/offset+octet-stream',
        'upload-offset': String(chunk.offset),
      });
      // A finished upload whose answer was lost: the server says so and names the video.
      const done = (answer.body?.details as { videoId?: string } | undefined)?.videoId;
      if (answer.status === 409 && done) return { uploadId, offset: chunk.offset, size: chunk.offset, status: 'completed', videoId: done };
      if (answer.status !== 200) throw errorOf(answer, 'Sending the video');
      return toServerUpload(answer, uploadId);
    },
    async cancel(uploadId) {
      const answer = await call('DELETE', `/admin/uploads/${encodeURIComponent(uploadId)}`, undefined, undefined);
      if (answer.status !== 200 && answer.status !== 404 && answer.status !== 409) throw errorOf(answer, 'Canceling the upload');
    },
  };
}
