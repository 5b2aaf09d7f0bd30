/**
 * The bulk upload queue over tus (tusClient.ts): at most `concurrency` (2) files at a time,
 * per-file and overall progress (bytes, speed), pause, resume, cancel, retry. Network errors are
 * retried with exponential back-off; every retry and every resume continues the same tus upload,
 * so tus-js-client first asks the server its offset (HEAD) and bytes the server already has are
 * never sent again, also after a server restart. No Electron: it runs the same in the main
 * process, the dev bridge and the tests.
 */

import { uploadCaptionSidecars } from './captionSidecars.js';
import { abortableSleep, backoffDelay, bytesPerSecond, type RateSample } from './transferTiming.js';
import { AbortedError, runTusAttempt, type TusEndpoint, terminateUpload, UploadError, type UploadMetadataInput } from './tusClient.js';

export { backoffDelay } from './transferTiming.js';

export type UploadState = 'queued' | 'uploading' | 'retrying' | 'paused' | 'completed' | 'failed' | 'canceled';

export interface UploadInput {
  /** The caller's id for the row (default: generated). */
  id?: string;
  filePath: string;
  fileName: string;
  size: number;
  metadata: UploadMetadataInput;
  /** Where the server takes the thumbnail frame (the frame the admin picked in the console). */
  thumbnailAtSeconds?: number;
}

export interface UploadItemSnapshot {
  id: string;
  fileName: string;
  size: number;
  state: UploadState;
  /** Bytes the server confirmed plus bytes in flight (for the progress bar). */
  uploadedBytes: number;
  /** Bytes actually put on the wire for this file, over all attempts. */
  sentBytes: number;
  /** Bytes per second over the last few seconds. */
  speed: number;
  attempts: number;
  uploadId?: string;
  videoId?: string;
  /** Caption sidecars sent after the upload (captionSidecars.ts): languages added, files refused. */
  captions?: { added: string[]; failed: string[] };
  error?: string;
  nextRetryAt?: number;
}

export interface QueueSnapshot {
  items: UploadItemSnapshot[];
  totalBytes: number;
  uploadedBytes: number;
  speed: number;
  active: number;
  done: boolean;
}

export interface UploadQueueOptions {
  concurrency?: number;
  /** Bytes per tus PATCH request. */
  chunkSize?: number;
  /** Network retries per file before it is marked failed (the count resets when bytes get through). */
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Minimum time between two progress notifications (state changes are immediate). */
  progressIntervalMs?: number;
  now?: () => number;
}

interface Item extends UploadItemSnapshot {
  input: UploadInput;
  /** Bytes the server confirmed. */
  serverOffset: number;
  /** Bytes of the running request beyond serverOffset. */
  inFlight: number;
  /** The tus upload URL once created: later attempts resume it. */
  uploadUrl?: string;
  controller?: AbortController;
  samples: RateSample[];
}

let counter = 0;

export class UploadQueue {
  private readonly items: Item[] = [];
  private readonly listeners = new Set<(s: QueueSnapshot) => void>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly opts: Required<UploadQueueOptions>;
  private lastEmit = 0;
  private emitTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly endpoint: TusEndpoint,
    opts: UploadQueueOptions = {},
  ) {
    this.opts = {
      concurrency: opts.concurrency ?? 2,
      chunkSize: opts.chunkSize ?? 8 * 1024 * 1024,
      maxRetries: opts.maxRetries ?? 8,
      backoffBaseMs: opts.backoffBaseMs ?? 1000,
      backoffMaxMs: opts.backoffMaxMs ?? 30_000,
      progressIntervalMs: opts.progressIntervalMs ?? 100,
      now: opts.now ?? Date.now,
    };
  }

  /** Adds files to the end of the queue; returns their ids. */
  add(inputs: UploadInput[]): string[] {
    const ids = inputs.map((input) => {
      const item: Item = {
        id: input.id ?? `upload-${++counter}-${Date.now().toString(36)}`,
        fileName: input.fileName,
        size: input.size,
        state: 'queued',
        uploadedBytes: 0,
        sentBytes: 0,
        speed: 0,
        attempts: 0,
        input,
        serverOffset: 0,
        inFlight: 0,
        samples: [],
      };
      if (this.items.some((i) => i.id === item.id)) throw new Error(`Duplicate upload id ${item.id}`);
      this.items.push(item);
      return item.id;
    });
    this.changed(true);
    this.schedule();
    return ids;
  }

  pause(id: string): void {
    const item = this.get(id);
    if (item.state === 'queued') item.state = 'paused';
    else if (item.state === 'uploading' || item.state === 'retrying') {
      item.state = 'paused';
      item.controller?.abort();
    }
    this.changed(true);
  }

  resume(id: string): void {
    const item = this.get(id);
    if (item.state !== 'paused') return;
    item.state = 'queued';
    this.changed(true);
    this.schedule();
  }

  /** Stops the file and asks the server to drop what it has. */
  async cancel(id: string): Promise<void> {
    const item = this.get(id);
    if (item.state === 'completed' || item.state === 'canceled') return;
    item.state = 'canceled';
    item.controller?.abort();
    item.speed = 0;
    this.changed(true);
    this.schedule();
    if (item.uploadUrl) await terminateUpload(this.endpoint, item.uploadUrl).catch(() => {});
  }

  /** Tries a failed file again (from the server's offset when the server still has it). */
  retry(id: string): void {
    const item = this.get(id);
    if (item.state !== 'failed') return;
    item.state = 'queued';
    item.error = undefined;
    item.attempts = 0;
    this.changed(true);
    this.schedule();
  }

  pauseAll(): void {
    for (const i of this.items) if (['queued', 'uploading', 'retrying'].includes(i.state)) this.pause(i.id);
  }

  resumeAll(): void {
    for (const i of this.items) if (i.state === 'paused') this.resume(i.id);
  }

  /** Forgets finished rows (completed, failed, canceled). */
  clearFinished(): void {
    for (let k = this.items.length - 1; k >= 0; k--) {
      const s = this.items[k]?.state;
      if (s === 'completed' || s === 'canceled' || s === 'failed') this.items.splice(k, 1);
    }
    this.changed(true);
  }

  snapshot(): QueueSnapshot {
    const now = this.opts.now();
    const items = this.items.map((i) => this.itemSnapshot(i, now));
    const live = items.filter((i) => i.state !== 'canceled');
    return {
      items,
      totalBytes: live.reduce((n, i) => n + i.size, 0),
      uploadedBytes: live.reduce((n, i) => n + i.uploadedBytes, 0),
      speed: items.reduce((n, i) => n + i.speed, 0),
      active: items.filter((i) => i.state === 'uploading' || i.state === 'retrying').length,
      done: items.every((i) => ['completed', 'failed', 'canceled', 'paused'].includes(i.state)),
    };
  }

  /** Called with a fresh snapshot on every state change and at most every `progressIntervalMs` for bytes. */
  onChange(listener: (s: QueueSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when no file is queued, uploading or waiting to retry. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return !this.items.some((i) => i.state === 'queued' || i.state === 'uploading' || i.state === 'retrying');
  }

  private get(id: string): Item {
    const item = this.items.find((i) => i.id === id);
    if (!item) throw new Error(`No upload ${id}`);
    return item;
  }

  private itemSnapshot(i: Item, now: number): UploadItemSnapshot {
    const speed = i.state === 'uploading' ? bytesPerSecond(i.samples, now) : 0;
    return {
      id: i.id,
      fileName: i.fileName,
      size: i.size,
      state: i.state,
      uploadedBytes: i.state === 'completed' ? i.size : Math.min(i.size, i.serverOffset + i.inFlight),
      sentBytes: i.sentBytes,
      speed: Math.round(speed),
      attempts: i.attempts,
      uploadId: i.uploadId,
      videoId: i.videoId,
      captions: i.captions,
      error: i.error,
      nextRetryAt: i.state === 'retrying' ? i.nextRetryAt : undefined,
    };
  }

  private changed(immediate: boolean): void {
    const now = this.opts.now();
    const emit = () => {
      this.lastEmit = this.opts.now();
      this.emitTimer = undefined;
      const snap = this.snapshot();
      for (const l of this.listeners) l(snap);
    };
    if (immediate || now - this.lastEmit >= this.opts.progressIntervalMs) {
      if (this.emitTimer) clearTimeout(this.emitTimer);
      emit();
    } else if (!this.emitTimer) {
      this.emitTimer = setTimeout(emit, this.opts.progressIntervalMs - (now - this.lastEmit));
    }
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
  }

  private schedule(): void {
    let active = this.items.filter((i) => i.state === 'uploading' || i.state === 'retrying').length;
    for (const item of this.items) {
      if (active >= this.opts.concurrency) break;
      if (item.state !== 'queued' || item.controller) continue;
      active++;
      item.state = 'uploading';
      void this.run(item);
    }
    this.changed(true);
  }

  /** One file until it completes, fails, or is paused or canceled. */
  private async run(item: Item): Promise<void> {
    const controller = new AbortController();
    item.controller = controller;
    const { signal } = controller;
    try {
      for (;;) {
        try {
          await this.attempt(item, signal);
          return;
        } catch (err) {
          item.inFlight = 0;
          if (signal.aborted || err instanceof AbortedError) return;
          const e = err instanceof UploadError ? err : new UploadError((err as Error).message ?? String(err), false);
          // An expired token: a new one and straight on.
          if (e.status === 401 && item.attempts < this.opts.maxRetries && (await this.endpoint.refresh?.())) {
            item.attempts++;
            continue;
          }
          if (e.retryable && item.attempts < this.opts.maxRetries) {
            // 1. Wait (longer each time), then 2. continue the same upload (tus asks the offset first).
            item.attempts++;
            const delay = backoffDelay(item.attempts, this.opts.backoffBaseMs, this.opts.backoffMaxMs);
            item.state = 'retrying';
            item.error = e.message;
            item.nextRetryAt = this.opts.now() + delay;
            this.changed(true);
            await abortableSleep(delay, signal);
            item.state = 'uploading';
            this.changed(true);
            continue;
          }
          item.state = 'failed';
          item.error = e.message;
          // A refused upload cannot be continued (the server dropped it); a network give-up can.
          if (!e.retryable) {
            item.uploadId = undefined;
            item.uploadUrl = undefined;
            item.serverOffset = 0;
          }
          return;
        }
      }
    } catch (err) {
      if (!(err instanceof AbortedError)) {
        item.state = 'failed';
        item.error = (err as Error).message;
      }
    } finally {
      item.controller = undefined;
      item.inFlight = 0;
      item.speed = 0;
      this.changed(true);
      this.schedule();
    }
  }

  /** One tus attempt: creates the upload or resumes it from the server's offset, to the end. */
  private async attempt(item: Item, signal: AbortSignal): Promise<void> {
    const videoId = await runTusAttempt(
      this.endpoint,
      {
        filePath: item.input.filePath,
        fileName: item.fileName,
        metadata: item.input.metadata,
        thumbnailAtSeconds: item.input.thumbnailAtSeconds,
        uploadUrl: item.uploadUrl,
        chunkSize: this.opts.chunkSize,
      },
      {
        onUrl: (url) => {
          item.uploadUrl = url;
          item.uploadId = decodeURIComponent(url.replace(/\/+$/, '').split('/').pop() ?? '');
          this.changed(true);
        },
        onBytes: (sent, offset) => {
          item.inFlight = Math.max(0, offset - item.serverOffset);
          item.sentBytes += sent;
          item.samples.push({ t: this.opts.now(), bytes: item.sentBytes });
          if (item.samples.length > 200) item.samples.splice(0, item.samples.length - 200);
          this.changed(false);
        },
        onConfirmed: (offset) => {
          item.serverOffset = offset;
          item.inFlight = 0;
          item.attempts = 0;
          item.error = undefined;
          this.changed(false);
        },
      },
      signal,
    );
    // Caption files beside the video (clip.en.vtt, clip.pt-BR.srt) become its tracks.
    item.captions = await uploadCaptionSidecars(this.endpoint, videoId, item.input.filePath);
    item.state = 'completed';
    item.videoId = videoId;
    item.serverOffset = item.size;
    item.inFlight = 0;
    item.error = undefined;
    this.changed(true);
  }
}
