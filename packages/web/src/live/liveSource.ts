/**
 * Puts a live show's HLS on a <video> (issue 43): hls.js where Media Source Extensions exist (it
 * fetches the AES-128 keys and segments and keeps near the live edge, three segments back), native
 * HLS where the browser plays it itself. hls.js is loaded on demand, a chunk of its own.
 */
export interface LiveSource {
  engine: 'hls.js' | 'native-hls';
  /** Back to the live edge (after a pause). */
  goLive(): void;
  destroy(): void;
}

export async function attachLive(video: HTMLVideoElement, hlsUrl: string, onFatal: (details: string) => void): Promise<LiveSource> {
  const Hls = (await import('hls.js/light')).default;
  if (!Hls.isSupported() && video.canPlayType('application/vnd.apple.mpegurl') !== '') {
    video.src = hlsUrl;
    return {
      engine: 'native-hls',
      goLive() {
        if (video.seekable.length) video.currentTime = video.seekable.end(video.seekable.length - 1);
      },
      destroy() {
        video.removeAttribute('src');
        video.load();
      },
    };
  }
  const hls = new Hls({ liveSyncDurationCount: 3, liveMaxLatencyDurationCount: 6, startLevel: -1 });
  hls.on(Hls.Events.ERROR, (_e, data) => {
    if (data.fatal) onFatal(data.details);
  });
  hls.loadSource(hlsUrl);
  hls.attachMedia(video);
  return {
    engine: 'hls.js',
    goLive() {
      if (hls.liveSyncPosition !== null) video.currentTime = hls.liveSyncPosition;
    },
    destroy: () => hls.destroy(),
  };
}
