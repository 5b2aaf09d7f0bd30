import { describe, expect, it } from 'vitest';
import { ladderArgs, planLadder, previewInterval } from './ladder';
import { previewLayout, previewsVtt } from './previews';

const names = (w: number, h: number) => planLadder({ width: w, height: h }).map((r) => `${r.name}:${r.width}x${r.height}`);

describe('planLadder', () => {
  it('1080p source: the four rungs', () =>
    expect(names(1920, 1080)).toEqual(['1080p:1920x1080', '720p:1280x720', '480p:854x480', '360p:640x360']));
  it('4K source adds its own resolution as 2160p', () => expect(names(3840, 2160)[0]).toBe('2160p:3840x2160'));
  it('a 1440p source adds 1440p; a taller one is capped at 2160', () => {
    expect(names(2560, 1440)[0]).toBe('1440p:2560x1440');
    expect(names(7680, 4320)[0]).toBe('2160p:3840x2160');
  });
  it('never upscales', () => {
    expect(names(1280, 720)).toEqual(['720p:1280x720', '480p:854x480', '360p:640x360']);
    expect(names(160, 120)).toEqual(['120p:160x120']);
  });
  it('portrait sources keep their shape (even widths)', () => expect(names(1080, 1920)[1]).toBe('1080p:608x1080'));
  it('no picture, no ladder', () => expect(planLadder({ width: 0, height: 0 })).toEqual([]));
});

describe('ladderArgs', () => {
  it('one decode, one split per rendition plus the sprites, encrypted HLS of 4 s', () => {
    const args = ladderArgs({
      input: 'in.mp4',
      outDir: '/o',
      keyInfoFile: '/k',
      renditions: planLadder({ width: 1280, height: 720 }),
      hasAudio: true,
      durationSeconds: 10,
      preset: 'ultrafast',
    });
    const joined = args.join(' ');
    expect(joined).toContain('[0:v:0]split=4[s0][s1][s2][sp]');
    expect(joined).toContain('-hls_key_info_file /k');
    expect(joined).toContain('-hls_time 4');
    expect(joined).toContain('v:0,a:0,name:720p v:1,a:1,name:480p v:2,a:2,name:360p');
    expect(joined).toContain('/o/sprites/sprite-%03d.jpg');
  });
});

describe('seek previews', () => {
  it('one tile per second for short videos, up to one per 10 s', () => {
    expect(previewInterval(10)).toBe(1);
    expect(previewInterval(3600)).toBe(10);
    expect(previewInterval(250)).toBe(3);
  });
  it('maps each interval to its tile, over several sheets', () => {
    const vtt = previewsVtt(previewLayout(205, 2), 205);
    expect(vtt.startsWith('WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nsprites/sprite-001.jpg#xywh=0,0,160,90\n')).toBe(true);
    expect(vtt).toContain('00:00:22.000 --> 00:00:24.000\nsprites/sprite-001.jpg#xywh=160,90,160,90');
    expect(vtt).toContain('00:03:20.000 --> 00:03:22.000\nsprites/sprite-002.jpg#xywh=0,0,160,90');
    expect(vtt.trimEnd().endsWith('00:03:24.000 --> 00:03:25.000\nsprites/sprite-002.jpg#xywh=320,0,160,90')).toBe(true);
  });
});
