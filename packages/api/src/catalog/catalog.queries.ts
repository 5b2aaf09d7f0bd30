/**
 * Reads of the catalog read model: the Video entity of spec section 3 (plus a public thumbnail
 * URL) and the filtered, paged list. Visitors see published videos only.
 */
import type { adminVideoSchema, videoSchema } from '@members/ui/api/schemas';
import { can, isStaffRole } from '@members/ui/staffRoles';
import type { z } from 'zod';
import type { Queryable } from '../db/types.js';
import { findMemberStanding } from '../identity/index.js';
import { redactSecrets } from '../shared/redact.js';
import type { HlsLadder, VideoRow } from './catalog.projection.js';

/** The Video entity (spec §3) as the API answers it: the shared schema the OpenAPI document and the clients use. */
export type VideoEntity = z.infer<typeof videoSchema>;
export type AdminVideoEntity = z.infer<typeof adminVideoSchema>;

/** The video's HLS ladder once transcoded, else null. */
export function hlsLadderOf(row: Pick<VideoRow, 'hls'>): HlsLadder | null {
  return row.hls ? (JSON.parse(row.hls) as HlsLadder) : null;
}

export const thumbnailUrl = (videoId: string) => `/api/videos/${videoId}/thumbnail`;

/** `availableAt`: when the viewer's audience may watch it (releases.ts `availableAtOf`); null: now, or no schedule. */
export function toVideoEntity(row: VideoRow, availableAt: string | null = null): VideoEntity {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    modelName: row.model_name,
    duration: Number(row.duration_seconds),
    viewCount: Number(row.view_count),
    publishedDate: row.published_at,
    thumbnailPath: thumbnailUrl(row.id),
    tags: JSON.parse(row.tags) as string[],
    categories: JSON.parse(row.categories) as string[],
    accessLevel: row.access_level as VideoEntity['accessLevel'],
    qualities: hlsLadderOf(row)?.renditions.map((r) => r.name) ?? [],
    captions: JSON.parse(row.captions ?? '[]') as VideoEntity['captions'],
    exclusiveTo: row.exclusive_to === 'annual' ? 'annual' : null,
    publishAt: row.publish_at,
    availableAt,
  };
}

/** The admin's view adds what the upload recorded. */
export function toAdminVideo(row: VideoRow): AdminVideoEntity {
  return {
    ...toVideoEntity(row),
    published: row.published === 1 || (row.published as unknown) === true,
    uploadedAt: row.uploaded_at,
    updatedAt: row.updated_at,
    width: Number(row.width),
    height: Number(row.height),
    codec: row.codec,
    audioCodec: row.audio_codec,
    size: Number(row.video_size),
    mimeType: row.video_mime,
    transcode: {
      status: row.transcode_status,
      progress: Number(row.transcode_progress),
      // Failures recorded before signatures were redacted at the event still show none.
      error: row.transcode_error === null ? null : redactSecrets(row.transcode_error),
    },
  };
}

/**
 * A video as `viewerId` may see it: published, or (admins' paths) any with `includeUnpublished`;
 * an admin viewer finds unpublished and scheduled videos too (issue 40: the creator previews her library).
 * A custom request's delivered video (`private_to`) exists only for its requester (published or
 * not) and admins; to everyone else, the signed-out included, it is not found.
 */
export async function findVideo(
  db: Queryable,
  id: string,
  opts: { includeUnpublished?: boolean; viewerId?: string | null | undefined } = {},
): Promise<VideoRow | undefined> {
  const row = await db.get<VideoRow>('SELECT * FROM videos WHERE id = ?', [id]);
  if (!row) return undefined;
  if (opts.includeUnpublished) return row;
  if (row.private_to) return opts.viewerId && (row.private_to === opts.viewerId || (await isAdmin(db, opts.viewerId))) ? row : undefined;
  if (Number(row.published) !== 1) return opts.viewerId && (await isAdmin(db, opts.viewerId)) ? row : undefined;
  return row;
}

/**
 * Whether an admin may preview videos not out yet (pure): the staff role's `videos` permission
 * (issue 42: previewing the unpublished and the scheduled is the editor's and the owner's work); an
 * admin without a staff role is the owner.
 */
export function mayPreviewUnreleased(standing: { role: string; staff_role: string | null }): boolean {
  return standing.role === 'admin' && can(isStaffRole(standing.staff_role) ? standing.staff_role : 'owner', 'videos');
}

/**
 * Whether `viewerId` reached a video not out yet (unpublished or scheduled; `findVideo` found it for
 * an admin) without the permission to preview it: the caller answers 403 `auth.permission_required`.
 * A published video is never refused here (every staff role plays what members may), nor a custom
 * video to its own requester.
 */
export async function previewRefused(
  db: Queryable,
  row: Pick<VideoRow, 'published' | 'private_to'>,
  viewerId: string | null | undefined,
): Promise<boolean> {
  if (Number(row.published) === 1 || !viewerId || row.private_to === viewerId) return false;
  const standing = await findMemberStanding(db, viewerId);
  return !!standing && standing.role === 'admin' && !mayPreviewUnreleased(standing);
}

async function isAdmin(db: Queryable, userId: string): Promise<boolean> {
  return (await findMemberStanding(db, userId))?.role === 'admin';
}

/** The ids of every video whose HLS ladder is complete, in id order (published or not). */
export async function transcodedVideoIds(db: Queryable): Promise<string[]> {
  return (await db.all<{ id: string }>(`SELECT id FROM videos WHERE transcode_status = 'completed' ORDER BY id`)).map((r) => r.id);
}

/** The ids of every video the catalog knows, in id order (a backup copies exactly their media). */
export async function allVideoIds(db: Queryable): Promise<string[]> {
  return (await db.all<{ id: string }>('SELECT id FROM videos ORDER BY id')).map((r) => r.id);
}

/** How many counted views a video has (0 for an unknown video). */
export async function viewCountOf(db: Queryable, id: string): Promise<number> {
  const row = await db.get<{ view_count: number }>('SELECT view_count FROM videos WHERE id = ?', [id]);
  return Number(row?.view_count ?? 0);
}

export interface ListQuery {
  page: number;
  pageSize: number;
  q?: string | undefined;
  model?: string | undefined;
  category?: string | undefined;
  tag?: string | undefined;
  accessLevel?: string | undefined;
  /** 'annual': only the behind-the-scenes videos. */
  exclusiveTo?: string | undefined;
  sort: 'newest' | 'popular';
  includeUnpublished?: boolean;
  /** The signed-in viewer: their own delivered custom videos are listed too. */
  viewerId?: string | null | undefined;
}

/** Escapes LIKE wildcards so a search for "50%" means the text "50%". */
const likePattern = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

export async function listVideos(db: Queryable, q: ListQuery): Promise<{ rows: VideoRow[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (!q.includeUnpublished) {
    // Custom videos delivered to someone else are nobody else's business (admins see them in the admin list).
    where.push('((v.published = 1 AND v.private_to IS NULL) OR v.private_to = ?)');
    params.push(q.viewerId ?? '');
  }
  if (q.q) {
    const p = likePattern(q.q);
    where.push(
      `(lower(v.title) LIKE ? ESCAPE '\\' OR lower(v.description) LIKE ? ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM video_labels l WHERE l.video_id = v.id AND l.kind = 'tag' AND l.value_lower LIKE ? ESCAPE '\\'))`,
    );
    params.push(p, p, p);
  }
  if (q.model) {
    where.push('lower(v.model_name) = ?');
    params.push(q.model.toLowerCase());
  }
  for (const [kind, value] of [
    ['tag', q.tag],
    ['category', q.category],
  ] as const) {
    if (!value) continue;
    where.push('EXISTS (SELECT 1 FROM video_labels l WHERE l.video_id = v.id AND l.kind = ? AND l.value_lower = ?)');
    params.push(kind, value.toLowerCase());
  }
  if (q.accessLevel) {
    where.push('v.access_level = ?');
    params.push(q.accessLevel);
  }
  if (q.exclusiveTo) {
    where.push('v.exclusive_to = ?');
    params.push(q.exclusiveTo);
  }
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const order = q.sort === 'popular' ? 'v.view_count DESC, v.published_at DESC, v.id' : 'v.published_at DESC, v.uploaded_at DESC, v.id';
  const totalRow = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM videos v ${whereSql}`, params);
  const rows = await db.all<VideoRow>(`SELECT v.* FROM videos v ${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`, [
    ...params,
    q.pageSize,
    (q.page - 1) * q.pageSize,
  ]);
  return { rows, total: Number(totalRow?.n ?? 0) };
}
