/**
 * Which engine puts a stream on the player, from what the browser offers: hls.js wherever Media
 * Source Extensions exist (Chrome, Edge, Firefox, WebKitGTK, Android; Safari 17+ on iOS through
 * ManagedMediaSource, which hls.js uses too), the browser's own HLS where it has no MSE but plays
 * HLS itself (older iOS Safari), else the progressive original file. Pure, so the engines this
 * machine cannot run (Safari, iOS) are covered by a unit test; the browser suites cover the rest.
 */
export type Engine = 'hls.js' | 'native-hls' | 'progressive';

export interface BrowserMedia {
  /** The stream has an HLS ladder (the video was transcoded). */
  hls: boolean;
  /** hls.js could be loaded and reports support (`Hls.isSupported()`: MSE or ManagedMediaSource). */
  hlsJs: boolean;
  /** `video.canPlayType('application/vnd.apple.mpegurl')` is not empty. */
  nativeHls: boolean;
}

export function chooseEngine(m: BrowserMedia): Engine {
  if (!m.hls) return 'progressive';
  if (m.hlsJs) return 'hls.js';
  if (m.nativeHls) return 'native-hls';
  return 'progressive';
}
