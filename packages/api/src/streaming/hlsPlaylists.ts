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
export function masterPlaylist(
  renditions: readonly RenditionInfo[],
  query: string,
  captions: readonly { language: string; label: string }[] = [],
): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  // One SUBTITLES rendition per caption track (RFC 8216 §4.3.4.1), written here at every request:
  // a track added after the transcode is listed at once. Quoted values cannot hold `"` or a newline.
  const quoted = (s: string) => s.replace(/["\r\n]/g, "'");
  captions.forEach((t) => {
    lines.push(
      `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="${quoted(t.language)}",NAME="${quoted(t.label)}",DEFAULT=NO,AUTOSELECT=YES,URI="${captionPlaylistPath(t.language)}?${query}"`,
    );
  });
  const subtitles = captions.length ? ',SUBTITLES="subs"' : '';
  for (const r of renditions) {
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.width}x${r.height},CODECS="${r.codecs}",NAME="${r.name}"${subtitles}`,
      `${r.name}/index.m3u8?${query}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A caption track's media playlist, relative to the master. */
export const captionPlaylistPath = (language: string) => `captions/${encodeURIComponent(language)}/index.m3u8`;

/**
 * The WebVTT offset of ffmpeg's MPEG-TS segments: the muxer starts the stream at 1.4 s (90 kHz
 * ticks), and hls.js and Safari place a WebVTT segment's cues by this map (RFC 8216 §3.5), so a
 * cue at 00:00:01.000 shows one second into the video.
 */
export const MPEGTS_START = 126000;

/** A caption track's media playlist: one WebVTT segment covering the whole video. */
export function captionMediaPlaylist(durationSeconds: number, query: string): string {
  const duration = Math.max(1, durationSeconds);
  return [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${Math.ceil(duration)}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    `#EXTINF:${duration.toFixed(3)},`,
    `captions.vtt?${query}`,
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

/** The stored (clean) WebVTT as an HLS WebVTT segment: `X-TIMESTAMP-MAP` after its header line. */
export function captionSegment(vtt: string): string {
  const newline = vtt.indexOf('\n');
  const header = newline === -1 ? vtt : vtt.slice(0, newline);
  const rest = newline === -1 ? '' : vtt.slice(newline + 1);
  return `${header}\nX-TIMESTAMP-MAP=MPEGTS:${MPEGTS_START},LOCAL:00:00:00.000\n${rest}`;
}

/** The comment line a marked ladder's stored playlists carry (transcode/watermarkVariants.ts). */
export const FORENSIC_AB_TAG = '## forensic-ab';

/** Whether a stored media playlist belongs to a marked (A/B) ladder. */
export const isMarkedPlaylist = (text: string) => text.split(/\r?\n/, 3).includes(FORENSIC_AB_TAG);

/**
 * Rewrites a media playlist of rendition `name`: every segment URI becomes
 * `../segments/{name}-seg_NNNNN.ts?query`; every `#EXT-X-KEY` URI becomes `keyUri`, with the
 * window it names (`key?w=3` → `keyUri&w=3`, transcode/hlsPackaging.ts) or none (a ladder
 * transcoded with one key per video: its stored URI is `key`).
 */
export function rewriteMediaPlaylist(
  text: string,
  name: string,
  query: string,
  keyUri: string,
  variantOf?: (position: number) => 0 | 1,
): string {
  let position = 0;
  return text
    .split(/\r?\n/)
    .filter((line) => line !== FORENSIC_AB_TAG)
    .map((line) => {
      if (line.startsWith('#EXT-X-KEY:'))
        return line.replace(/URI="([^"]*)"/, (_, uri: string) => {
          const window = /^key\?w=(\d{1,6})$/.exec(uri)?.[1];
          return `URI="${keyUri}${window === undefined ? '' : `&w=${window}`}"`;
        });
      if (line && !line.startsWith('#')) {
        if (!/^seg_\d{5}\.ts$/.test(line.trim())) throw new Error(`unexpected segment name in a stored playlist: ${line}`);
        // A marked ladder (forensics): this member's code chooses variant A (`seg_N.ts`) or B (`seg_Nb.ts`).
        const file = variantOf?.(position++) === 1 ? line.trim().replace(/\.ts$/, 'b.ts') : line.trim();
        return `../segments/${name}-${file}?${query}`;
      }
      return line;
    })
    .join('\n');
}

/** Rewrites the previews WebVTT: every `sprites/…jpg#xywh=…` gets `?query` before its fragment. */
export function rewritePreviewsVtt(text: string, query: string): string {
  return text.replace(/^(sprites\/sprite-\d{3}\.jpg)(#xywh=\d+,\d+,\d+,\d+)$/gm, `$1?${query}$2`);
}
