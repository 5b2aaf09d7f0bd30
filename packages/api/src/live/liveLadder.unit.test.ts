import { describe, expect, it } from 'vitest';
import { liveLadderArgs, liveMasterPlaylist, livePlaylist, plainSegments, planLiveLadder, rewriteLivePlaylist } from './liveLadder.js';

describe('the live ladder', () => {
  it('is capped by the source, tallest first, at most three renditions, never upscaled', () => {
    expect(planLiveLadder({ width: 640, height: 360 }, true).map((r) => r.name)).toEqual(['360p', '240p']);
    expect(planLiveLadder({ width: 1920, height: 1080 }, true).map((r) => r.name)).toEqual(['1080p', '720p', '480p']);
    expect(planLiveLadder({ width: 320, height: 180 }, false).map((r) => [r.name, r.width])).toEqual([['180p', 320]]);
    expect(planLiveLadder({ width: 0, height: 0 }, true)).toEqual([]);
  });

  it('cuts 2 s segments with a keyframe every 2 s, one stream per rendition, and copies the source for the replay', () => {
    const renditions = planLiveLadder({ width: 640, height: 360 }, true);
    const args = liveLadderArgs({
      input: 'rtmp://127.0.0.1:1/live/k?t=x',
      workDir: '/w',
      renditions,
      hasAudio: true,
      preset: 'veryfast',
      recordTo: '/w/r.mkv',
    });
    const joined = args.join(' ');
    expect(joined).toContain('-hls_time 2');
    expect(joined).toContain('expr:gte(t,n_forced*2)');
    expect(joined).toContain('v:0,a:0,name:360p v:1,a:1,name:240p');
    expect(args.slice(-9)).toEqual(['-map', '0:v:0', '-map', '0:a:0', '-c', 'copy', '-f', 'matroska', '/w/r.mkv']);
    expect(liveLadderArgs({ input: 'i', workDir: '/w', renditions, hasAudio: false, preset: 'p' }).join(' ')).not.toContain('0:a:0');
  });

  it('lists the last segments of the window with a key line per key window, and ends the list at the end', () => {
    const segments = Array.from({ length: 9 }, () => ({ duration: 2 }));
    const text = livePlaylist(segments, { windowSegments: 6, keyWindow: 7, ended: false });
    expect(text).toContain('#EXT-X-MEDIA-SEQUENCE:3');
    expect(text.match(/#EXT-X-KEY/g)).toHaveLength(2);
    expect(text).toContain('URI="key?w=0"');
    expect(text).toContain('URI="key?w=1"\n#EXTINF:2.000,\nseg_00007.ts');
    expect(text).not.toContain('seg_00002.ts');
    expect(text).not.toContain('#EXT-X-ENDLIST');
    expect(livePlaylist(segments, { windowSegments: 6, keyWindow: 7, ended: true })).toContain('#EXT-X-ENDLIST');
  });

  it("reads ffmpeg's finished segments and signs every URI for the viewer", () => {
    expect(plainSegments('#EXTM3U\n#EXTINF:2.000000,\nseg_00000.ts\n#EXTINF:1.960000,\nseg_00001.ts\n')).toEqual([
      { file: 'seg_00000.ts', duration: 2 },
      { file: 'seg_00001.ts', duration: 1.96 },
    ]);
    const stored = livePlaylist([{ duration: 2 }], { windowSegments: 6, keyWindow: 7, ended: false });
    const rewritten = rewriteLivePlaylist(stored, '360p', 'u=a&s=b', '/api/live/hls/x/key?u=a&t=c');
    expect(rewritten).toContain('URI="/api/live/hls/x/key?u=a&t=c&w=0"');
    expect(rewritten).toContain('../segments/360p-seg_00000.ts?u=a&s=b');
    const master = liveMasterPlaylist([{ name: '240p', width: 426, height: 240, bandwidth: 500_000 }], 'q=1');
    expect(master).toContain('RESOLUTION=426x240');
    expect(master).toContain('240p/index.m3u8?q=1');
  });
});
