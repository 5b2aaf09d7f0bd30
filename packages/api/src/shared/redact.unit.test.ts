import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it('removes presigned signatures and credentials, keeping the rest of the message', () => {
    const url =
      'https://rgw.example/bucket/videos/abc/video.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA123%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=600&X-Amz-Signature=0123abcdef&X-Amz-SignedHeaders=host';
    const out = redactSecrets(`[in#0 @ 0x5] Error opening input ${url}: Invalid data`);
    expect(out).not.toContain('0123abcdef');
    expect(out).not.toContain('AKIA123');
    expect(out).toContain('X-Amz-Signature=[redacted]');
    expect(out).toContain('X-Amz-Expires=600');
    expect(out).toContain('Invalid data');
  });

  it("removes our own media URLs' s= and t= values, not other parameters", () => {
    const out = redactSecrets('/api/media/videos/v1?u=user1&e=1700000000&r=720p&s=SIGSIGSIG and /api/hls/v1/key?u=x&e=1&t=TOKTOK&w=3');
    expect(out).toBe('/api/media/videos/v1?u=user1&e=1700000000&r=720p&s=[redacted] and /api/hls/v1/key?u=x&e=1&t=[redacted]&w=3');
  });
});
