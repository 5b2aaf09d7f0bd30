/**
 * HLS key derivation and segment encryption against fixed bytes, as docs/videos.md documents them:
 * window w's key = the first 16 bytes of HMAC-SHA256(video key, "members/hls-window/v1\n" + w in
 * decimal); the IV of media sequence number n = n big-endian in 16 bytes (RFC 8216 §5.2); segments
 * AES-128-CBC with PKCS#7 padding. A player or a second packager built from the doc gets exactly these
 * bytes, so a change to the label, the truncation, the IV or the window size fails here.
 *
 * Every expected value was computed outside this code:
 * - window keys: Python `hmac.new(key, f"members/hls-window/v1\n{w}".encode(), hashlib.sha256).digest()[:16].hex()`
 *   (and w = 0, 1, 12345 again with `openssl dgst -sha256 -mac HMAC -macopt hexkey:…`);
 * - IVs: Python `n.to_bytes(16, "big").hex()`;
 * - ciphertexts: `openssl enc -aes-128-cbc -K <window key> -iv <IV>` over the plaintext, and again with
 *   Python's `cryptography` (AES, CBC, PKCS7 padder).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encryptInWindows, sequenceIv } from './hlsPackaging.js';
import { windowKey } from './videoKeys.js';

/** The video key 00 01 02 … 0f. */
const VIDEO_KEY = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

const WINDOW_KEYS: [window: number, keyHex: string][] = [
  [0, 'eda7106c65d29314639d0d99b8cace01'],
  [1, 'b9738693022aae22461bcecc253b56d0'],
  [2, '75c37863e530230c24365de8a83f568b'],
  [6, 'dd7d77403a67aa62929414778d988c93'],
  [7, 'c8c61c650bde270e1f0f9a53b0d7a742'],
  [10, 'b989973603fbd7c871f35a04b41944cd'],
  [12345, '27a7ca84d415602b29b231120fb71dc6'],
];

const IVS: [sequence: number, ivHex: string][] = [
  [0, '00000000000000000000000000000000'],
  [1, '00000000000000000000000000000001'],
  [258, '00000000000000000000000000000102'],
  [2 ** 32 + 5, '00000000000000000000000100000005'],
  [Number.MAX_SAFE_INTEGER, '0000000000000000001fffffffffffff'],
];

describe('HLS window keys (HMAC-SHA256, "members/hls-window/v1\\n" + w, first 16 bytes)', () => {
  it.each(WINDOW_KEYS)('window %i of the video key 000102…0f is %s', (window, keyHex) => {
    expect(windowKey(VIDEO_KEY, window).toString('hex')).toBe(keyHex);
  });
});

describe('HLS IVs (the media sequence number, big-endian in 16 bytes)', () => {
  it.each(IVS)('sequence %i gives %s', (sequence, ivHex) => {
    expect(sequenceIv(sequence).toString('hex')).toBe(ivHex);
  });
});

describe('a packaged rendition, byte for byte', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hls-golden-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('encrypts segment i (33 + i bytes of 0x47) under its window key with its sequence number as IV', async () => {
    // Eight segments from media sequence 5: segments 0–6 are window 0, segment 7 opens window 1.
    const names = Array.from({ length: 8 }, (_, i) => `seg_${String(i).padStart(5, '0')}.ts`);
    fs.writeFileSync(
      path.join(dir, 'index.m3u8'),
      `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:5\n${names.map((n) => `#EXTINF:4.000000,\n${n}`).join('\n')}\n#EXT-X-ENDLIST\n`,
    );
    for (const [i, name] of names.entries()) fs.writeFileSync(path.join(dir, name), Buffer.alloc(33 + i, 0x47));
    await encryptInWindows(dir, VIDEO_KEY);
    const cipherHex = (i: number) => fs.readFileSync(path.join(dir, names[i] as string)).toString('hex');
    // Segment 0: window 0 key eda7…ce01, IV …05.
    expect(cipherHex(0)).toBe('129311db827deb239d60ae37bcb15993a31c738591f79fb7dd7a5b5ec5e73fd58f51ea2a60775321840f65a70c16e3d3');
    // Segment 6: still window 0, IV …0b.
    expect(cipherHex(6)).toBe('cca467dd98fe32218cd064ff12ac96106c4373ae49fe28509958681e0492160a94aa9bab9cc4517b75aff94d53c23b42');
    // Segment 7: window 1 key b973…56d0, IV …0c.
    expect(cipherHex(7)).toBe('64ca23c7479432005c858127f9e3061569ca5b20049aaef8f2216b3340ee3b1821fb2c67bd601883130b0f8b4c95f59e');
    const keyLines = fs.readFileSync(path.join(dir, 'index.m3u8'), 'utf8').match(/^#EXT-X-KEY:.*$/gm);
    expect(keyLines).toEqual(['#EXT-X-KEY:METHOD=AES-128,URI="key?w=0"', '#EXT-X-KEY:METHOD=AES-128,URI="key?w=1"']);
  });
});
