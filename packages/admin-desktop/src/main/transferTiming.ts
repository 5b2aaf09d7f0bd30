/** Timing helpers of the upload queue: exponential back-off, an abortable wait, a sliding-window speed. */
import { AbortedError } from './tusClient.js';

/** Back-off before retry n (1-based): base·2^(n-1), capped. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/** Waits `ms`, or rejects with AbortedError as soon as `signal` aborts (pause, cancel). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(new AbortedError());
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface RateSample {
  /** ms timestamp */
  t: number;
  /** cumulative bytes sent at t */
  bytes: number;
}

export const SPEED_WINDOW_MS = 3000;

/** Bytes per second over the last SPEED_WINDOW_MS of samples (0 when there is too little to say). */
export function bytesPerSecond(samples: RateSample[], now: number): number {
  const recent = samples.filter((s) => s.t >= now - SPEED_WINDOW_MS);
  const first = recent[0];
  const last = recent[recent.length - 1];
  if (!first || !last || last.t <= first.t) return 0;
  return Math.round(((last.bytes - first.bytes) * 1000) / Math.max(last.t - first.t, 250));
}
