/**
 * What the player tells the member when it cannot show the video (issue 28). Two different things
 * fail: access is refused (the stream request, or a media fetch, answered 401/403/…) and the overlay
 * shows the spec's 'Access Restricted' (§2 Secure player overlay, §8); or access was granted and the
 * browser could not fetch or decode the media (no H.264 in WebKitGTK without gstreamer1.0-libav, a
 * damaged file, a dropped connection, a server error). The second is a playback failure, said as
 * one, with what the member can do: telling a paying member they have no access would be false.
 * Pure, so every case is covered by a unit test; the browser suite covers both in Chromium.
 */

export type FailureKind = 'refused' | 'playback' | 'preparing';

/** The copy of a playback failure (short; the overlay adds "Try again" and "Go Back" buttons). */
export const PLAYBACK_FAILED = {
  heading: 'Playback failed',
  message:
    'Your browser could not play this video. Try again; if it keeps failing, check your connection or open the site in another browser such as Chrome or Firefox.',
} as const;

/** The copy when access was granted but nothing is playable yet for this member (issue 27: originals are
 * for admins only, so before the transcode finishes a member has neither HLS nor a capped file). */
export const NOT_READY = {
  heading: 'Video not ready yet',
  message: 'This video is still being prepared for streaming. Please try again in a few minutes.',
} as const;

/**
 * A granted stream with nothing to play: no HLS ladder yet and no progressive file within the
 * member's quality cap. Said as "not ready", not as a failure of the member's browser.
 * @example nothingToPlay({ hlsUrl: null, streamUrl: null }) // true
 */
export function nothingToPlay(stream: { hlsUrl: string | null; streamUrl: string | null }): boolean {
  return !stream.hlsUrl && !stream.streamUrl;
}

/** HTTP statuses that mean "not for you": the member is signed out, not entitled, blocked or the video is gone. */
const REFUSALS = new Set([401, 402, 403, 404, 410, 451]);

/**
 * A failed stream request (`GET /api/videos/{id}/stream`): a refusal when the server answered with
 * a 4xx, a playback failure when it could not be reached (status 0) or failed itself (5xx), which a
 * retry may cure.
 * @example streamRequestFailure(403) // 'refused'
 * @example streamRequestFailure(0) // 'playback'
 */
export function streamRequestFailure(status: number | undefined): FailureKind {
  return status !== undefined && status >= 400 && status < 500 ? 'refused' : 'playback';
}

/**
 * The last engine gave up after access was granted: a refusal if any media fetch on the way was
 * refused (a signed URL gone stale, a revoked grant), else a playback failure (decode, network,
 * server error).
 * @example mediaFailure([{ status: 403 }]) // 'refused'
 * @example mediaFailure([{ details: 'MEDIA_ERR_SRC_NOT_SUPPORTED' }]) // 'playback'
 */
export function mediaFailure(problems: readonly { status?: number; details?: string }[]): FailureKind {
  return problems.some((p) => p.status !== undefined && REFUSALS.has(p.status)) ? 'refused' : 'playback';
}
