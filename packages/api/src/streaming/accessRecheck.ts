/**
 * The access decision again, for a signed media URL's viewer, on every request that hands out new
 * media (the progressive file, the HLS master and media playlists): a signed URL lives
 * STREAM_URL_TTL_SECONDS (hours), but erasure, the end of a subscription, an admin's suspension or
 * a lower plan must stop new bytes within a minute. The decision (viewing.service.ts
 * `authorizeViewing`, the one the stream and key routes make) is kept per process for
 * ACCESS_RECHECK_SECONDS per viewer, video and region answer, at most RECHECK_ENTRIES entries (the
 * oldest go first), so a player fetching range after range costs one decision per 15 s.
 * Time from the injected clock.
 */
import type { VideoRow } from '../catalog/index.js';
import { HttpError, valueOr } from '../http/envelope.js';
import type { AppContext } from '../kernel/context.js';
import type { Result } from '../shared/result.js';
import { STREAM_LINK_INVALID } from './linkMessages.js';
import { authorizeViewing, renditionEntitlement, type Viewer } from './viewing.service.js';

/** How long a decision is reused (the revocation bound's first term, docs/security.md). */
export const ACCESS_RECHECK_SECONDS = 15;
const RECHECK_ENTRIES = 10_000;

export interface Rechecked {
  video: VideoRow;
  viewer: Viewer;
  /** The viewer's entitlement now: the tallest rendition they may receive. */
  maxHeight: number;
}

interface Entry {
  until: number;
  result: Result<Rechecked>;
}

const caches = new WeakMap<object, Map<string, Entry>>();

async function decide(ctx: AppContext, videoId: string, userId: string, regionBlocked: boolean): Promise<Result<Rechecked>> {
  const allowed = await authorizeViewing(ctx, { videoId, userId, regionBlocked });
  if (!allowed.ok) return allowed;
  const { video, viewer } = allowed.value;
  return { ok: true, value: { video, viewer, maxHeight: await renditionEntitlement(ctx, video, viewer) } };
}

/**
 * The decision for `userId` on `videoId` now (at most ACCESS_RECHECK_SECONDS old), or throws the
 * refusal: 404 for a video gone, else 403 (a viewer who no longer exists gets the invalid-link
 * message, not a sign-in prompt: the URL was signed for someone else's session).
 */
export async function recheckAccess(ctx: AppContext, videoId: string, userId: string, regionBlocked: boolean): Promise<Rechecked> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new Map();
    caches.set(ctx, cache);
  }
  const key = `${userId}\n${videoId}\n${regionBlocked ? 1 : 0}`;
  const now = ctx.clock.now().getTime();
  let entry = cache.get(key);
  if (!entry || entry.until <= now) {
    cache.delete(key);
    entry = { until: now + ACCESS_RECHECK_SECONDS * 1000, result: await decide(ctx, videoId, userId, regionBlocked) };
    cache.set(key, entry);
    // Bounded: the oldest entries (the Map keeps insertion order) go first.
    for (const old of cache.keys()) {
      if (cache.size <= RECHECK_ENTRIES) break;
      cache.delete(old);
    }
  }
  const result = entry.result;
  if (!result.ok && result.error.status === 401) throw new HttpError('stream.link_invalid', STREAM_LINK_INVALID);
  return valueOr(result);
}
