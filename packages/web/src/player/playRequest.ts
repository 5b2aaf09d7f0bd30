/**
 * The member's Play and Pause, kept as an intent rather than a single call. `video.play()` returns
 * a promise the browser may reject: a load that starts while Play is pending (hls.js attaching its
 * MediaSource after a Play pressed while the player was still loading hls.js, or the fallback to
 * the progressive file) rejects it with `AbortError` and leaves the element paused — the HTML load
 * algorithm sets `paused` back to true — so a member's click silently did nothing (the WebKit
 * journey's "paused after Play with 16 s buffered"). Here every rejection is reported as a stream
 * problem naming the error (`play:AbortError`, `play:NotAllowedError`, …), and an `AbortError`
 * while the member still wants to play is answered by playing again once the element can play.
 * A Pause by the member withdraws the intent, so the `AbortError` that `pause()` itself gives a
 * pending Play is not undone.
 */
import type { Engine, StreamProblem } from './adaptiveSource';

const wantsPlay = new WeakMap<HTMLMediaElement, boolean>();

/** Reports a rejected `play()` the way the engines report theirs: a `streamproblem` event from the element. */
function reportRejection(video: HTMLMediaElement, name: string): void {
  const problem: StreamProblem = {
    engine: (video.dataset.engine as Engine | undefined) ?? 'progressive',
    fatal: false,
    details: `play:${name}`,
  };
  video.dispatchEvent(new CustomEvent('streamproblem', { detail: problem, bubbles: true }));
}

function attempt(video: HTMLMediaElement, retried: boolean): void {
  video.play().catch((err: unknown) => {
    const name = err instanceof Error || err instanceof DOMException ? err.name : 'Error';
    reportRejection(video, name);
    if (name !== 'AbortError' || retried || !wantsPlay.get(video)) return;
    const again = () => {
      if (wantsPlay.get(video) && video.paused) attempt(video, true);
    };
    // The load that aborted Play may already have reached the point where the element can play.
    if (video.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA) again();
    else video.addEventListener('canplay', again, { once: true });
  });
}

/** The member pressed Play (the button, a click on the picture, the keyboard). */
export function requestPlay(video: HTMLMediaElement): void {
  wantsPlay.set(video, true);
  attempt(video, false);
}

/** The member pressed Pause, or the player closes. */
export function requestPause(video: HTMLMediaElement): void {
  wantsPlay.set(video, false);
  video.pause();
}

/** Play when paused, else pause: what the Play/Pause button and the space key do. */
export function togglePlayback(video: HTMLMediaElement): void {
  if (video.paused) requestPlay(video);
  else requestPause(video);
}
