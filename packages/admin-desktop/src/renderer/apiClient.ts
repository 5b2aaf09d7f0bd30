/**
 * The shared typed API client of @members/ui, wired for the desktop: its requests go through the
 * main process (`desktop.api.request`), which adds the admin's token and refreshes it, so the
 * renderer holds no token and makes no network request of its own (the CSP forbids it anyway).
 * The dashboard's single-file upload form is routed into the tus upload queue.
 */
import {
  type ApiClient,
  ApiError,
  createApiClient,
  createSessionStore,
  isErrorCode,
  type LeakExamination,
  type UploadVideoPayload,
} from '@members/ui/api';
import type { DesktopApi } from '../shared/ipc.js';

/** A base URL that never resolves: every call is intercepted below. */
const BASE = 'https://desktop.invalid/api';

function memoryStorage(): Storage {
  const map = new Map<string, string>();
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => void map.delete(k),
    setItem: (k, v) => void map.set(k, String(v)),
  };
}

function ipcFetch(desktop: DesktopApi): typeof fetch {
  return async function fetchThroughMain(input, init) {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const path = url.startsWith(BASE) ? url.slice(BASE.length) : url;
    const method = (init?.method ?? 'GET').toUpperCase();
    if (path.startsWith('/auth/')) {
      return new Response(JSON.stringify({ success: false, error: 'The desktop app keeps the session' }), { status: 401 });
    }
    if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE')
      throw new TypeError(`Unsupported method ${method}`);
    let body: unknown;
    if (typeof init?.body === 'string' && init.body !== '') body = JSON.parse(init.body);
    const answer = await desktop.api.request({ method, path, body });
    if (answer.status < 200 || answer.status > 599) throw new TypeError(answer.body.error ?? 'Network error');
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
}

/** The dashboard form's upload, sent through the queue (needs the file's path: Electron only). */
async function uploadThroughQueue(
  desktop: DesktopApi,
  payload: UploadVideoPayload,
  onProgress?: (fraction: number) => void,
): Promise<{ videoId: string }> {
  const filePath = payload.video instanceof File ? desktop.files.pathOf(payload.video) : undefined;
  if (!filePath) throw new ApiError(0, 'Use Bulk upload in this window: the file location is not available here');
  const [file] = await desktop.files.expand({ paths: [filePath] });
  if (!file) throw new ApiError(0, 'Failed to upload video');
  const info = await desktop.media.inspect({ path: file });
  if (!info.isVideo) throw new ApiError(400, info.reason ?? 'Not a video file');
  const tags = (payload.tags ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const id = `form-${Date.now().toString(36)}`;
  return new Promise((resolve, reject) => {
    const stop = desktop.uploads.onChange((s) => {
      const item = s.items.find((i) => i.id === id);
      if (!item) return;
      onProgress?.(item.size ? item.uploadedBytes / item.size : 0);
      if (item.state === 'completed' && item.videoId) {
        stop();
        resolve({ videoId: item.videoId });
      } else if (item.state === 'failed' || item.state === 'canceled') {
        stop();
        reject(new ApiError(400, item.error ?? 'Failed to upload video'));
      }
    });
    desktop.uploads
      .add({
        items: [
          {
            id,
            path: file,
            metadata: {
              title: payload.title,
              description: payload.description || undefined,
              model: payload.model || undefined,
              accessLevel: (payload.accessLevel as 'free' | 'premium' | 'vip' | undefined) || undefined,
              tags: tags.length ? tags : undefined,
              durationText: payload.duration || undefined,
            },
          },
        ],
      })
      .catch((err: Error) => {
        stop();
        reject(new ApiError(400, err.message));
      });
  });
}

/** Files chosen with the native dialog, by the stand-in File the shared screens hold for them. */
const localPaths = new WeakMap<Blob, string>();

/** A stand-in File for a local path (no bytes read): the main process sends the file itself. */
export function localFile(filePath: string): File {
  const file = new File([], filePath.split(/[\\/]/).pop() || 'copy');
  localPaths.set(file, filePath);
  return file;
}

/** Leak tracing's upload: the main process streams the local file to the server (`leaks:examine`). */
async function examineThroughMain(desktop: DesktopApi, file: Blob, videoId?: string): Promise<LeakExamination> {
  let filePath = localPaths.get(file);
  if (!filePath) {
    const dropped = file instanceof File ? desktop.files.pathOf(file) : undefined;
    if (!dropped) throw new ApiError(0, 'Use "Choose file…" in this window: the file location is not available here');
    [filePath] = await desktop.files.expand({ paths: [dropped] });
    if (!filePath) throw new ApiError(0, 'That file cannot be read');
  }
  const answer = await desktop.leaks.examine({ path: filePath, ...(videoId ? { videoId } : {}) });
  const code = (answer.body as { code?: unknown }).code;
  if (answer.status < 200 || answer.status >= 300 || !answer.body.success)
    throw new ApiError(answer.status, answer.body.error ?? 'Failed to send the copy', undefined, isErrorCode(code) ? code : undefined);
  return answer.body.data as LeakExamination;
}

export function createDesktopApiClient(desktop: DesktopApi, onSignedOut: () => void): ApiClient {
  const client = createApiClient({
    baseUrl: BASE,
    session: createSessionStore(memoryStorage()),
    fetch: ipcFetch(desktop),
    onUnauthorized: onSignedOut,
    onForbidden: () => {},
  });
  return {
    ...client,
    uploadVideo: (payload, onProgress) => uploadThroughQueue(desktop, payload, onProgress),
    examineLeakCopy: (file, opts = {}) => examineThroughMain(desktop, file, opts.videoId),
  };
}
