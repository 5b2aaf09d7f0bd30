/**
 * The AES-128 key (and IV) of each video's HLS segments, table `video_keys` (migration 007). One key
 * per video, made on its first transcode and kept across retries; removed with the video.
 *
 * Segments are encrypted per window (KEY_WINDOW_SEGMENTS segments, under 30 s of media) with a key
 * of its own, derived from the video's key: `windowKey(key, w)` = the first 16 bytes of
 * HMAC-SHA256(video key, "members/hls-window/v1\n" + w). A key fetched before a member lost access
 * opens its own window and no other (the key route re-checks the access decision per window).
 * Ladders transcoded before windows existed use the video's key itself for every segment.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/types.js';

export interface VideoKey {
  key: Buffer;
  iv: Buffer;
}

/** Segments per key window: 7 × ~4 s = ~28 s of media under one key. */
export const KEY_WINDOW_SEGMENTS = 7;

/** The AES-128 key of window `index` (segments index×KEY_WINDOW_SEGMENTS …). */
export function windowKey(videoKey: Buffer, index: number): Buffer {
  return createHmac('sha256', videoKey).update(`members/hls-window/v1\n${index}`).digest().subarray(0, 16);
}

export async function keyOf(db: Queryable, videoId: string): Promise<VideoKey | undefined> {
  const row = await db.get<{ key_hex: string; iv_hex: string }>('SELECT key_hex, iv_hex FROM video_keys WHERE video_id = ?', [videoId]);
  return row ? { key: Buffer.from(row.key_hex, 'hex'), iv: Buffer.from(row.iv_hex, 'hex') } : undefined;
}

/** The video's key, made now (16 random bytes, and a random IV) if it has none. */
export async function keyFor(db: Queryable, videoId: string, at: string): Promise<VideoKey> {
  await db.run('INSERT INTO video_keys (video_id, key_hex, iv_hex, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (video_id) DO NOTHING', [
    videoId,
    randomBytes(16).toString('hex'),
    randomBytes(16).toString('hex'),
    at,
  ]);
  const key = await keyOf(db, videoId);
  if (!key) throw new Error(`no key stored for video ${videoId}`);
  return key;
}

export async function removeKey(db: Queryable, videoId: string): Promise<void> {
  await db.run('DELETE FROM video_keys WHERE video_id = ?', [videoId]);
}
