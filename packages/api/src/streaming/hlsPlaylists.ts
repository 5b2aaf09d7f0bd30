/**
 * The playlists a viewer receives (pure): a master listing only the renditions they may watch,
 * media playlists whose segment URIs carry the viewer's signed grant and whose key URI carries a
 * short-lived key token, and the seek-preview WebVTT with signed sprite URIs. The files on disk keep
 * plain relative names (see transcode/hlsTranscoder.ts); nothing signed is ever stored.
 */
import type { RenditionInfo } from '../transcode/index.js';

/**
 * @example masterPlaylist(renditions, 'u=…&e=…&m=1080&s=…') // "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=…\n1080p/index.m3u8?u=…"
 */
export function masterPlaylist(renditions: readonly RenditionInfo[], query: string): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  for (const r of renditions) {
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.width}x${r.height},CODECS="${r.codecs}",NAME="${r.name}"`,
      `${r.name}/index.m3u8?${query}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Rewrites a media playlist of rendition `name`: every segment URI becomes
 * `../segments/{name}-seg_NNNNN.ts?query`; every `#EXT-X-KEY` URI becomes `keyUri`, with the
 * window it names (`key?w=3` → `keyUri&w=3`, transcode/hlsPackaging.ts) or none (a ladder
 * transcoded with one key per video: its stored URI is `key`).
 */
export function rewriteMediaPlaylist(text: string, name: string, query: string, keyUri: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => {
      if (line.startsWith('#EXT-X-KEY:'))
        return line.replace(/URI="([^"]*)"/, (_, uri: string) => {
          const window = /^key\?w=(\d{1,6})$/.exec(uri)?.[1];
          return `URI="${keyUri}${window === undefined ? '' : `&w=${window}`}"`;
        });
      if (line && !line.startsWith('#')) {
        if (!/^seg_\d{5}\.ts$/.test(line.trim())) throw new Error(`unexpected segment name in a stored playlist: ${line}`);
        return `../segments/${name}-${line.trim()}?${query}`;
      }
      return line;
    })
    .join('\n');
}

/** Rewrites the previews WebVTT: every `sprites/…jpg#xywh=…` gets `?query` before its fragment. */
export function rewritePreviewsVtt(text: string, query: string): string {
  return text.replace(/^(sprites\/sprite-\d{3}\.jpg)(#xywh=\d+,\d+,\d+,\d+)$/gm, `$1?${query}$2`);
}
