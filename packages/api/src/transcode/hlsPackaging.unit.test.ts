import { createDecipheriv } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encryptInWindows, sequenceIv, windowedPlaylist } from './hlsPackaging';
import { KEY_WINDOW_SEGMENTS, windowKey } from './videoKeys';

// Window keys as literals, computed outside the code under test (Python:
// hmac.new(bytes([fill]) * 16, f"members/hls-window/v1\n{w}".encode(), hashlib.sha256).digest()[:16].hex()),
// so these tests do not check windowKey against itself; hlsKeys.golden.unit.test.ts has the derivation's vectors.
const KEYS_OF_07 = ['6b39bd7f828b3ba6f46391c9826be241', 'bdf7ef84211e495dc1f6c99c7294ed9d', '9ef3265c07b3b3601b34ce07617eea65'];
const KEYS_OF_03 = ['3936a2758e8c789d2ccd7fa9f22f1457', '87bb7e3452ec8d71d261914275bb9f1c', '8e863c3ce1190be79c05c52658e42eef'];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hls-packaging-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const playlist = (n: number, first = 0) =>
  `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:${first}\n${Array.from({ length: n }, (_, i) => `#EXTINF:4.000000,\nseg_${String(i).padStart(5, '0')}.ts`).join('\n')}\n#EXT-X-ENDLIST\n`;

describe('key windows', () => {
  it('a window of at most 30 s of media under one key; window keys are the documented HMAC values, not the video key', () => {
    expect(KEY_WINDOW_SEGMENTS * 4).toBeLessThanOrEqual(30);
    const videoKey = Buffer.alloc(16, 7);
    expect([0, 1, 2].map((w) => windowKey(videoKey, w).toString('hex'))).toEqual(KEYS_OF_07);
    expect(KEYS_OF_07).not.toContain(videoKey.toString('hex'));
  });

  it('one #EXT-X-KEY before the first segment of each window, the media sequence number as IV', () => {
    const { text, segments } = windowedPlaylist(playlist(16, 5));
    expect([...text.matchAll(/^#EXT-X-KEY:METHOD=AES-128,URI="key\?w=(\d+)"$/gm)].map((m) => m[1])).toEqual(['0', '1', '2']);
    expect(segments.map((s) => s.window)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2]);
    expect(segments[0]?.sequence).toBe(5);
    // Each key line sits right before the #EXTINF of its window's first segment.
    expect(text).toContain('#EXT-X-KEY:METHOD=AES-128,URI="key?w=1"\n#EXTINF:4.000000,\nseg_00007.ts');
    expect(sequenceIv(258).toString('hex')).toBe('00000000000000000000000000000102');
    expect(() => windowedPlaylist(text)).toThrow();
  });

  it("encrypts each segment with its window's key (AES-128-CBC, PKCS#7), as RFC 8216 §5.2 decrypts it", async () => {
    const videoKey = Buffer.alloc(16, 3);
    const rendition = path.join(dir, '720p');
    fs.mkdirSync(rendition);
    fs.writeFileSync(path.join(rendition, 'index.m3u8'), playlist(9));
    const plain = Array.from({ length: 9 }, (_, i) => Buffer.alloc(188 * 3 + i, 0x47));
    for (const [i, b] of plain.entries()) fs.writeFileSync(path.join(rendition, `seg_${String(i).padStart(5, '0')}.ts`), b);
    await encryptInWindows(rendition, videoKey);
    // Segment → its window (7 segments a window) and the IV of its media sequence number (the playlist starts at 0).
    for (const [i, window, ivHex] of [
      [0, 0, '00000000000000000000000000000000'],
      [6, 0, '00000000000000000000000000000006'],
      [7, 1, '00000000000000000000000000000007'],
      [8, 1, '00000000000000000000000000000008'],
    ] as const) {
      const enc = fs.readFileSync(path.join(rendition, `seg_${String(i).padStart(5, '0')}.ts`));
      expect(enc.equals(plain[i] as Buffer)).toBe(false);
      const opens = (key: Buffer) => {
        try {
          const d = createDecipheriv('aes-128-cbc', key, Buffer.from(ivHex, 'hex'));
          return Buffer.concat([d.update(enc), d.final()]).equals(plain[i] as Buffer);
        } catch {
          return false; // bad padding
        }
      };
      const key = (w: number) => Buffer.from(KEYS_OF_03[w] as string, 'hex');
      expect(opens(key(window))).toBe(true);
      // Another window's key, or the video key itself, does not open it.
      expect(opens(key(window + 1))).toBe(false);
      expect(opens(videoKey)).toBe(false);
    }
    expect(fs.readFileSync(path.join(rendition, 'index.m3u8'), 'utf8').match(/#EXT-X-KEY/g)).toHaveLength(2);
  });
});
