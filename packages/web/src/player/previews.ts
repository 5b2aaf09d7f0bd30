/**
 * Seek previews (pure): parse the WebVTT the API serves (`sprites/sprite-001.jpg?…#xywh=x,y,w,h`
 * per time range) and find the tile for a time.
 */

export interface PreviewTile {
  start: number;
  end: number;
  /** Absolute sprite URL (resolved against the VTT's URL). */
  url: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

const seconds = (stamp: string) => {
  const parts = stamp.split(':').map(Number);
  return parts.reduce((acc, p) => acc * 60 + p, 0);
};

/**
 * @example parsePreviewsVtt('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nsprites/sprite-001.jpg?q#xywh=0,0,160,90', 'https://x/api/hls/v/previews.vtt')
 */
export function parsePreviewsVtt(text: string, baseUrl: string): PreviewTile[] {
  const tiles: PreviewTile[] = [];
  const blocks = text.replace(/\r/g, '').split(/\n\n+/);
  for (const block of blocks) {
    const lines = block.split('\n').filter(Boolean);
    const timing = lines.findIndex((l) => l.includes('-->'));
    const target = lines[timing + 1];
    if (timing < 0 || !target) continue;
    const [from, to] = (lines[timing] ?? '').split('-->').map((s) => s.trim().split(/\s+/)[0] ?? '');
    const m = /^(.*)#xywh=(\d+),(\d+),(\d+),(\d+)$/.exec(target.trim());
    if (!m || !from || !to) continue;
    tiles.push({
      start: seconds(from),
      end: seconds(to),
      url: new URL(m[1] as string, baseUrl).toString(),
      x: Number(m[2]),
      y: Number(m[3]),
      w: Number(m[4]),
      h: Number(m[5]),
    });
  }
  return tiles;
}

/** The tile shown for `time` (the last one past the end). */
export function tileAt(tiles: readonly PreviewTile[], time: number): PreviewTile | undefined {
  if (tiles.length === 0) return undefined;
  return tiles.find((t) => time >= t.start && time < t.end) ?? (time >= (tiles.at(-1)?.end ?? 0) ? tiles.at(-1) : tiles[0]);
}
