/**
 * Puts a stream on the player's <video>: the HLS master through hls.js where Media Source
 * Extensions exist (Chrome, Firefox, Edge, Android), native HLS where the browser plays it itself
 * (Safari, iOS), else the progressive original file. hls.js is imported here, on demand, so it
 * is a chunk of its own that only the player loads (never part of `/`'s first load). A fatal
 * hls.js error that a media recovery does not cure falls back to the progressive file. A stall
 * watchdog (stallWatchdog.ts) restarts a Media Source playback frozen with its data buffered.
 */
import type { StreamInfo } from '@members/ui/api';
import { chooseEngine, type Engine } from './engineChoice';
import { watchStalls } from './stallWatchdog';

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

const progressive = (video: HTMLVideoElement, stream: StreamInfo): AdaptiveSource => {
  video.src = stream.streamUrl;
  return { engine: 'progressive', setQuality() {}, destroy() {} };
};

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
  if (engine === 'native-hls') {
    video.src = stream.hlsUrl;
    return { engine, setQuality() {}, destroy() {} };
  }
  if (engine === 'progressive') return progressive(video, stream);
  const hls = new Hls({ startLevel: -1, capLevelToPlayerSize: false });
  let recovered = false;
  let destroyed = false;
  // WebKit can freeze with its data buffered when Play comes early; a small seek restarts it.
  const unwatch = watchStalls(video);
  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    cb.onQualities?.(hls.levels.map((l, index) => ({ index, height: l.height, name: `${l.height}p` })).sort((a, b) => b.height - a.height));
  });
  hls.on(Hls.Events.LEVEL_SWITCHED, (_e, data) => cb.onLevel?.(hls.levels[data.level]?.height ?? null));
  hls.on(Hls.Events.ERROR, (_e, data) => {
    if (!data.fatal || destroyed) return;
    if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !recovered) {
      recovered = true;
      hls.recoverMediaError();
      return;
    }
    destroyed = true;
    unwatch();
    hls.destroy();
    cb.onFallback?.(data.details);
    progressive(video, stream);
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
      destroyed = true;
      unwatch();
      hls.destroy();
    },
  };
}
