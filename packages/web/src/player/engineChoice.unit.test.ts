/** The player's engine choice, including the browsers the suites cannot drive here (Safari, iOS). */
import { describe, expect, it } from 'vitest';
import { chooseEngine } from './engineChoice';

describe('chooseEngine', () => {
  it('hls.js wherever it is supported (Chromium, Firefox, WebKitGTK, Safari 17+ with ManagedMediaSource), even with native HLS too', () => {
    expect(chooseEngine({ hls: true, hlsJs: true, nativeHls: false })).toBe('hls.js');
    expect(chooseEngine({ hls: true, hlsJs: true, nativeHls: true })).toBe('hls.js');
  });

  it("the browser's own HLS without MSE (iOS Safari before 17)", () => {
    expect(chooseEngine({ hls: true, hlsJs: false, nativeHls: true })).toBe('native-hls');
  });

  it('the original file when neither plays HLS, or when the video has no HLS ladder', () => {
    expect(chooseEngine({ hls: true, hlsJs: false, nativeHls: false })).toBe('progressive');
    expect(chooseEngine({ hls: false, hlsJs: true, nativeHls: true })).toBe('progressive');
  });
});
