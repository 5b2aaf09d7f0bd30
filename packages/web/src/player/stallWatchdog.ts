/**
 * Restarts a Media Source playback that stalls with its data buffered. WebKit (WebKitGTK 2.50,
 * measured in the engines' e2e suite) sometimes wedges when Play comes before hls.js's first
 * append: `paused` false, readyState HAVE_METADATA, currentTime frozen at the start although 16 s
 * are buffered; hls.js's own nudge (a seek of 0.1 s) never completes, a second small seek frees
 * it. Every second the watchdog samples the element; after two samples stuck with data ahead
 * (playing, or seeking into buffered data) it seeks a hundredth of a second on, at most three
 * times per stall. Playback that advances, pauses, ends or waits for data not yet buffered is
 * left alone (hls.js handles real buffer gaps).
 */
export interface PlaybackSample {
  paused: boolean;
  ended: boolean;
  currentTime: number;
  /** Seconds buffered from currentTime on (0 when currentTime is outside every buffered range). */
  bufferedAhead: number;
}

export interface StallState {
  lastTime: number;
  stuckSamples: number;
  kicks: number;
}

export const STUCK_SAMPLES = 2;
export const MAX_KICKS = 3;
/** Buffered data ahead that should have let the element play, seconds. */
export const MIN_AHEAD = 0.5;
export const KICK_SECONDS = 0.01;
/** Less than this between samples a second apart is no progress (a kick itself moves 0.01 s). */
export const MIN_PROGRESS = 0.05;

export const initialStall = (): StallState => ({ lastTime: -1, stuckSamples: 0, kicks: 0 });

/** The next state, and whether to seek now. */
export function sampleStall(s: StallState, p: PlaybackSample): { state: StallState; kick: boolean } {
  const moved = Math.abs(p.currentTime - s.lastTime) > MIN_PROGRESS;
  if (p.paused || p.ended || moved || p.bufferedAhead < MIN_AHEAD) {
    return { state: { lastTime: p.currentTime, stuckSamples: 0, kicks: moved ? 0 : s.kicks }, kick: false };
  }
  const stuckSamples = s.stuckSamples + 1;
  if (stuckSamples < STUCK_SAMPLES || s.kicks >= MAX_KICKS) return { state: { ...s, stuckSamples }, kick: false };
  return { state: { lastTime: p.currentTime, stuckSamples: 0, kicks: s.kicks + 1 }, kick: true };
}

function bufferedAhead(video: HTMLMediaElement): number {
  const t = video.currentTime;
  for (let i = 0; i < video.buffered.length; i++) {
    if (video.buffered.start(i) <= t + 0.05 && t < video.buffered.end(i)) return video.buffered.end(i) - t;
  }
  return 0;
}

/** Watches `video` until the returned function is called. */
export function watchStalls(video: HTMLMediaElement, onKick?: (at: number) => void): () => void {
  let state = initialStall();
  const timer = setInterval(() => {
    const r = sampleStall(state, {
      paused: video.paused,
      ended: video.ended,
      currentTime: video.currentTime,
      bufferedAhead: bufferedAhead(video),
    });
    state = r.state;
    if (r.kick) {
      onKick?.(video.currentTime);
      video.currentTime += KICK_SECONDS;
    }
  }, 1000);
  return () => clearInterval(timer);
}
