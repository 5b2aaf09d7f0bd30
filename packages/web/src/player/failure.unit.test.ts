/** Which heading the player shows when it cannot show the video: 'Access Restricted' only for a refusal. */
import { describe, expect, it } from 'vitest';
import { mediaFailure, nothingToPlay, streamRequestFailure } from './failure';

describe('streamRequestFailure', () => {
  it('a 4xx answer to the stream request is a refusal of access', () => {
    for (const status of [401, 403, 404, 451]) expect(streamRequestFailure(status)).toBe('refused');
  });

  it('no answer or a server error is a playback failure a retry may cure', () => {
    for (const status of [0, 500, 502, 503, undefined]) expect(streamRequestFailure(status)).toBe('playback');
  });
});

describe('mediaFailure', () => {
  it('a browser that cannot decode the media (no status anywhere) is a playback failure', () => {
    expect(mediaFailure([{ details: 'fragParsingError' }, { details: 'MEDIA_ERR_SRC_NOT_SUPPORTED' }])).toBe('playback');
    expect(mediaFailure([])).toBe('playback');
  });

  it('server errors and dropped fetches on the way are playback failures too', () => {
    expect(mediaFailure([{ status: 500 }, { status: 503 }, {}])).toBe('playback');
  });

  it('a media fetch refused on the way (a stale signature, a revoked grant) makes it a refusal', () => {
    expect(mediaFailure([{ status: 500 }, { status: 403 }, {}])).toBe('refused');
    expect(mediaFailure([{ status: 401 }])).toBe('refused');
  });
});

describe('nothingToPlay', () => {
  it('a granted stream without HLS and without a capped progressive file is "not ready", not a failure', () => {
    expect(nothingToPlay({ hlsUrl: null, streamUrl: null })).toBe(true);
  });
  it('either source is something to play', () => {
    expect(nothingToPlay({ hlsUrl: '/api/hls/v/master.m3u8?u=1', streamUrl: null })).toBe(false);
    expect(nothingToPlay({ hlsUrl: null, streamUrl: '/api/media/videos/v?r=360p' })).toBe(false);
  });
});
