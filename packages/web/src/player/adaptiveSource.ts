/**
 * Puts a stream on the player's <video>: the HLS master through hls.js where Media Source
 * Extensions exist (Chrome, Firefox, Edge, Android), native HLS where the browser plays it itself
 * (Safari, iOS), else the progressive file (within the viewer's quality cap, when there is one). hls.js is imported here, on demand, so it
 * is a chunk of its own that only the player loads (never part of `/`'s first load). A fatal
 * hls.js error that a media recovery does not cure falls back to the progressive file. The stall
 * watchdog runs beside it while hls.js plays (useStallWatchdog.ts).
 *
 * Every problem on the way is reported, never swallowed: each hls.js error, each failed fetch
 * attempt that hls.js's loader retries without a word, and a progressive file the browser cannot
 * load go out as a `streamproblem` event that bubbles from the <video>, to the player
 * (useAdaptiveEngine) and whoever watches the page (the bench, the browser tests), so a stall reads
 * as its cause rather than as a timeout.
 */
import type { StreamInfo } from '@members/ui/api';
import { chooseEngine, type Engine } from './engineChoice';

export type { Engine };

export interface Quality {
  /** hls.js level index. */
  index: number;
  height: number;
  name: string;
}

export interface AdaptiveSource {
  engine: Engine;
  /** -1: automatic (bandwidth-driven) selection. */
  setQuality(index: number): void;
  destroy(): void;
}

export interface AdaptiveCallbacks {
  onQualities?(qualities: Quality[]): void;
  /** The rendition now playing (height), as hls.js switches. */
  onLevel?(height: number | null): void;
  onFallback?(reason: string): void;
}

/** One thing that went wrong while fetching or decoding the stream. */
export interface StreamProblem {
  engine: Engine;
  /** Fatal: this engine gave up (hls.js then falls back to the progressive file; the progressive file has none). */
  fatal: boolean;
  /**
   * hls.js's `details` (`keyLoadError`, `fragLoadTimeOut`, …), `httpError`/`networkError` for one
   * failed attempt of a fetch hls.js retries, or the media error (`MEDIA_ERR_NETWORK`, …).
   */
  details: string;
  /** The HTTP status of the failed fetch, when there was an answer. */
  status?: number;
  /** The path fetched (no query: it holds the signature). */
  path?: string;
  /** For a give-up of the player's own (`noFrameAfterErrors`): the last problem before it, e.g. `keyLoadError 403`. */
  cause?: string;
}

/** After hls.js's first problem, how long the player waits for a frame before giving up on hls.js (see attachStream). */
export const GIVE_UP_MS = 10_000;

const MEDIA_ERRORS = ['', 'MEDIA_ERR_ABORTED', 'MEDIA_ERR_NETWORK', 'MEDIA_ERR_DECODE', 'MEDIA_ERR_SRC_NOT_SUPPORTED'];

function reporter(video: HTMLVideoElement) {
  return (problem: StreamProblem) => {
    video.dispatchEvent(new CustomEvent('streamproblem', { detail: problem, bubbles: true }));
  };
}

const pathOf = (url: string | undefined) => {
  if (!url) return undefined;
  try {
    return new URL(url, location.href).pathname;
  } catch {
    return undefined;
  }
};

/** A source the <video> element plays by itself (the original file, or HLS in Safari); its error is fatal. */
function direct(video: HTMLVideoElement, src: string, engine: Engine): AdaptiveSource {
  const report = reporter(video);
  const failed = () => report({ engine, fatal: true, details: MEDIA_ERRORS[video.error?.code ?? 0] || 'MEDIA_ERR', path: pathOf(src) });
  video.addEventListener('error', failed);
  video.src = src;
  return { engine, setQuality() {}, destroy: () => video.removeEventListener('error', failed) };
}
/**
 * The progressive file; when the API hands out none (`streamUrl: null`: no file within the viewer's
 * quality cap, e.g. before the transcode finishes), a fatal problem the player shows as a failure.
 */
function progressive(video: HTMLVideoElement, stream: StreamInfo): AdaptiveSource {
  if (stream.streamUrl) return direct(video, stream.streamUrl, 'progressive');
  reporter(video)({ engine: 'progressive', fatal: true, details: 'noProgressiveFile' });
  return { engine: 'progressive', setQuality() {}, destroy() {} };
}

export async function attachStream(video: HTMLVideoElement, stream: StreamInfo, cb: AdaptiveCallbacks = {}): Promise<AdaptiveSource> {
  if (!stream.hlsUrl) return progressive(video, stream);
  let Hls: typeof import('hls.js').default;
  try {
    // The light build: no alternate audio, subtitles, DRM or CMCD (none used); AES-128 and MPEG-TS are in.
    Hls = (await import('hls.js/light')).default;
  } catch {
    cb.onFallback?.('hls.js could not be loaded');
    return progressive(video, stream);
  }
  const engine = chooseEngine({
    hls: true,
    hlsJs: Hls.isSupported(),
    nativeHls: video.canPlayType('application/vnd.apple.mpegurl') !== '',
  });
  if (engine === 'native-hls') return direct(video, stream.hlsUrl, 'native-hls');
  if (engine === 'progressive') return progressive(video, stream);
  const report = reporter(video);
  let recovered = false;
  let destroyed = false;
  let fallback: AdaptiveSource | null = null;
  const hls = new Hls({
    startLevel: -1,
    capLevelToPlayerSize: false,
    // hls.js retries a failed fetch inside its loader (a key: up to 8 times, 1 s more each time)
    // and raises ERROR only when it gives up: each failed attempt is reported here as it happens.
    xhrSetup(xhr, url) {
      const path = pathOf(url);
      xhr.addEventListener('loadend', () => {
        if (!destroyed && xhr.status >= 400) report({ engine: 'hls.js', fatal: false, details: 'httpError', status: xhr.status, path });
      });
      xhr.addEventListener('error', () => {
        if (!destroyed) report({ engine: 'hls.js', fatal: false, details: 'networkError', path });
      });
    },
  });
  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    cb.onQualities?.(hls.levels.map((l, index) => ({ index, height: l.height, name: `${l.height}p` })).sort((a, b) => b.height - a.height));
  });
  hls.on(Hls.Events.LEVEL_SWITCHED, (_e, data) => cb.onLevel?.(hls.levels[data.level]?.height ?? null));
  // hls.js gives up on a stream it cannot decode only sometimes: it may retry or skip fragments it
  // cannot parse (a damaged segment, noise where a segment should be) without ever raising a fatal
  // error, or leave a decode error on the <video> unanswered — measured in Chromium, 4 of 6 such
  // streams sat silent with no frame. So a media error on the element counts as hls.js's own, and
  // GIVE_UP_MS after the first problem with still no frame to show, hls.js is given up on like after
  // a fatal error: the progressive file, then 'Playback failed' if that cannot play either.
  let giveUpTimer: ReturnType<typeof setTimeout> | undefined;
  // The last problem hls.js had: a give-up of our own names it (which of the two gives up first, this
  // timer or hls.js's own fatal error, depends on how fast hls.js works through its levels).
  let lastProblem: string | undefined;
  const release = () => {
    clearTimeout(giveUpTimer);
    video.removeEventListener('error', onVideoError);
  };
  const giveUp = (details: string) => {
    if (destroyed) return;
    destroyed = true;
    release();
    hls.destroy();
    cb.onFallback?.(details);
    fallback = progressive(video, stream);
  };
  const mediaError = (details: string) => {
    if (recovered) return giveUp(details);
    recovered = true;
    hls.recoverMediaError();
  };
  function onVideoError() {
    const code = video.error?.code;
    if (destroyed || (code !== MediaError.MEDIA_ERR_DECODE && code !== MediaError.MEDIA_ERR_SRC_NOT_SUPPORTED)) return;
    const details = MEDIA_ERRORS[code] as string;
    report({ engine: 'hls.js', fatal: recovered, details });
    mediaError(details);
  }
  video.addEventListener('error', onVideoError);
  const watchForFrame = () => {
    if (giveUpTimer !== undefined) return;
    giveUpTimer = setTimeout(() => {
      if (destroyed || video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) return;
      report({ engine: 'hls.js', fatal: true, details: 'noFrameAfterErrors', ...(lastProblem ? { cause: lastProblem } : {}) });
      giveUp('noFrameAfterErrors');
    }, GIVE_UP_MS);
  };
  hls.on(Hls.Events.ERROR, (_e, data) => {
    if (destroyed) return;
    const status = data.response?.code;
    report({
      engine: 'hls.js',
      fatal: data.fatal,
      details: data.details,
      ...(status ? { status } : {}),
      path: pathOf(data.url ?? data.frag?.url ?? data.context?.url),
    });
    lastProblem = `${data.details}${status ? ` ${status}` : ''}`;
    if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) watchForFrame();
    if (!data.fatal) return;
    if (data.type === Hls.ErrorTypes.MEDIA_ERROR) return mediaError(data.details);
    giveUp(data.details);
  });
  hls.loadSource(stream.hlsUrl);
  hls.attachMedia(video);
  return {
    engine: 'hls.js',
    setQuality(index) {
      // currentLevel switches now (flushing what is buffered); -1 hands the choice back to hls.js.
      if (!destroyed) hls.currentLevel = index;
    },
    destroy() {
      fallback?.destroy();
      if (destroyed) return;
      destroyed = true;
      release();
      hls.destroy();
    },
  };
}
