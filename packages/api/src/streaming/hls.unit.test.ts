import { describe, expect, it } from 'vitest';
import { isValidKey } from '../media/storage';
import { TestClock } from '../shared/clock.testkit';
import { windowedPlaylist } from '../transcode/hlsPackaging';
import { entitledRenditions, maxRenditionHeight } from './entitlement';
import { captionMediaPlaylist, captionSegment, masterPlaylist, rewriteMediaPlaylist, rewritePreviewsVtt } from './hlsPlaylists';
import { signHlsGrant, signKeyToken, verifyHlsGrant, verifyKeyToken } from './hlsSignature';

const media = { maxHeightByPlan: { monthly: 1080, annual: 2160 }, freeMaxHeight: 720 };
const r = (h: number) => ({
  name: `${h}p`,
  width: Math.round((h * 16) / 9),
  height: h,
  bandwidth: h * 1000,
  codecs: 'avc1.640028,mp4a.40.2',
});
const ladder = [r(2160), r(1080), r(720), r(480), r(360)];

describe('entitlement per rendition', () => {
  it.each([
    ['premium', 'monthly', 1080],
    ['premium', 'annual', 2160],
    ['vip', 'annual', 2160],
    ['free', null, 720],
    ['free', 'monthly', 1080],
    ['premium', null, 0],
  ] as const)('%s video, %s plan → %i', (accessLevel, plan, height) => {
    expect(maxRenditionHeight({ accessLevel, plan }, media)).toBe(height);
  });
  it('filters the ladder', () => {
    expect(entitledRenditions(ladder, 1080).map((x) => x.name)).toEqual(['1080p', '720p', '480p', '360p']);
    expect(entitledRenditions(ladder, 2160)).toHaveLength(5);
  });
});

describe('playlists', () => {
  it('the master lists only what it is given, each URI signed', () => {
    const text = masterPlaylist([r(720), r(360)], 'u=a&s=b');
    expect(text).toContain('RESOLUTION=1280x720,CODECS="avc1.640028,mp4a.40.2",NAME="720p"\n720p/index.m3u8?u=a&s=b');
    expect(text).not.toContain('1080p');
  });
  it('caption tracks: one SUBTITLES rendition each, named by every variant; none without tracks', () => {
    const text = masterPlaylist([r(720), r(360)], 'u=a&s=b', [
      { language: 'en', label: 'English' },
      { language: 'pt-BR', label: 'Say "hi"' },
    ]);
    expect(text.split('\n').filter((l) => l.startsWith('#EXT-X-MEDIA:'))).toEqual([
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=NO,AUTOSELECT=YES,URI="captions/en/index.m3u8?u=a&s=b"',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="pt-BR",NAME="Say \'hi\'",DEFAULT=NO,AUTOSELECT=YES,URI="captions/pt-BR/index.m3u8?u=a&s=b"',
    ]);
    expect(
      text
        .split('\n')
        .filter((l) => l.startsWith('#EXT-X-STREAM-INF:'))
        .every((l) => l.endsWith(',SUBTITLES="subs"')),
    ).toBe(true);
    expect(masterPlaylist([r(720)], 'q')).not.toContain('SUBTITLES');
    expect(captionMediaPlaylist(3, 'q=1')).toBe(
      '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:3.000,\ncaptions.vtt?q=1\n#EXT-X-ENDLIST\n',
    );
    expect(captionSegment('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n')).toBe(
      'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n\n00:00:01.000 --> 00:00:02.000\nHi\n',
    );
  });
  it('caption files are media keys (backup, restore and media copy carry them); nothing else under captions/ is', () => {
    expect(isValidKey('videos/v1/captions/pt-BR.0123abcd.vtt')).toBe(true);
    expect(isValidKey('videos/v1/captions/../../x.0123abcd.vtt')).toBe(false);
    expect(isValidKey('videos/v1/captions/en.vtt')).toBe(false);
    expect(isValidKey('videos/v1/captions/en.0123abcd.html')).toBe(false);
  });
  it('media playlists get signed segments and the key URI', () => {
    const stored = '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="key",IV=0x01\n#EXTINF:4.0,\nseg_00000.ts\n#EXT-X-ENDLIST\n';
    expect(rewriteMediaPlaylist(stored, '720p', 'q=1', '/api/hls/v/key?t=x')).toBe(
      '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="/api/hls/v/key?t=x",IV=0x01\n#EXTINF:4.0,\n../segments/720p-seg_00000.ts?q=1\n#EXT-X-ENDLIST\n',
    );
    expect(() => rewriteMediaPlaylist('#EXTM3U\n../../store.sqlite\n', '720p', 'q', 'k')).toThrow();
  });
  it('a key per window: each #EXT-X-KEY keeps the window it names', () => {
    const stored = windowedPlaylist(
      `#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n${[0, 1, 2].map((i) => `#EXTINF:4.0,\nseg_0000${i}.ts`).join('\n')}\n#EXT-X-ENDLIST\n`,
      2,
    ).text;
    expect(rewriteMediaPlaylist(stored, '720p', 'q=1', '/api/hls/v/key?t=x')).toBe(
      [
        '#EXTM3U',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-KEY:METHOD=AES-128,URI="/api/hls/v/key?t=x&w=0"',
        '#EXTINF:4.0,',
        '../segments/720p-seg_00000.ts?q=1',
        '#EXTINF:4.0,',
        '../segments/720p-seg_00001.ts?q=1',
        '#EXT-X-KEY:METHOD=AES-128,URI="/api/hls/v/key?t=x&w=1"',
        '#EXTINF:4.0,',
        '../segments/720p-seg_00002.ts?q=1',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });
  it('previews get signed sprite URIs before the fragment', () => {
    expect(rewritePreviewsVtt('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nsprites/sprite-001.jpg#xywh=0,0,160,90\n', 'q=1')).toContain(
      'sprites/sprite-001.jpg?q=1#xywh=0,0,160,90',
    );
  });
});

describe('HLS signatures', () => {
  const clock = new TestClock(new Date('2026-01-15T12:00:00Z'));
  const ctx = { env: { TOKEN_SECRET: 's'.repeat(40), STREAM_URL_TTL_SECONDS: 7200 }, clock } as never;
  const q = (s: string) => Object.fromEntries(new URLSearchParams(s)) as Record<string, string>;
  it('a grant covers its video, user and height until it expires', () => {
    const { query } = signHlsGrant(ctx, 'v1', 'u1', 1080);
    expect(verifyHlsGrant(ctx, 'v1', q(query))).toMatchObject({ ok: true, grant: { maxHeight: 1080 } });
    expect(verifyHlsGrant(ctx, 'v2', q(query))).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyHlsGrant(ctx, 'v1', { ...q(query), m: '2160' })).toEqual({ ok: false, reason: 'invalid' });
  });
  it('a key token is not a grant, and lives until the expiry it was signed with', () => {
    const expires = Math.floor(clock.now().getTime() / 1000) + 300;
    const token = q(signKeyToken(ctx, 'v1', 'u1', expires));
    expect(verifyKeyToken(ctx, 'v1', token).ok).toBe(true);
    expect(verifyKeyToken(ctx, 'v1', { ...token, e: String(expires + 3600) })).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyHlsGrant(ctx, 'v1', { u: token.u, e: token.e, m: '1080', s: token.t }).ok).toBe(false);
    (clock as TestClock).advance(301_000);
    expect(verifyKeyToken(ctx, 'v1', token)).toEqual({ ok: false, reason: 'expired' });
  });
});
