import { describe, expect, it } from 'vitest';
import { parsePreviewsVtt, tileAt } from './previews';

const vtt = `WEBVTT

00:00:00.000 --> 00:00:02.000
sprites/sprite-001.jpg?u=a&s=b#xywh=0,0,160,90

00:00:02.000 --> 00:00:04.000
sprites/sprite-001.jpg?u=a&s=b#xywh=160,0,160,90

00:03:20.000 --> 00:03:21.500
sprites/sprite-002.jpg?u=a&s=b#xywh=0,0,160,90
`;

describe('seek previews', () => {
  const tiles = parsePreviewsVtt(vtt, 'https://site.test/api/hls/v1/previews.vtt?u=a&s=b');
  it('parses cues with absolute sprite URLs and their tile', () => {
    expect(tiles).toHaveLength(3);
    expect(tiles[1]).toEqual({
      start: 2,
      end: 4,
      url: 'https://site.test/api/hls/v1/sprites/sprite-001.jpg?u=a&s=b',
      x: 160,
      y: 0,
      w: 160,
      h: 90,
    });
    expect(tiles[2]?.start).toBe(200);
  });
  it('finds the tile for a time', () => {
    expect(tileAt(tiles, 3.2)?.x).toBe(160);
    expect(tileAt(tiles, 500)?.url).toContain('sprite-002');
    expect(tileAt([], 1)).toBeUndefined();
  });
});
