/**
 * The admin's catalog use cases: edit a video's details, access level and publication; delete it
 * (files removed after the event is recorded). Uploads enter through `ingestVideoFile` (ingest.ts),
 * shared by the multipart route and the resumable uploads. Each answers a `Result`.
 */
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { findVideo, toAdminVideo } from './catalog.queries.js';
import { videos } from './video.commands.js';
import type { AccessLevel, VideoDetails } from './video.decider.js';
import { parseLabels } from './videoInput.js';

const VIDEO_NOT_FOUND = 'Video not found';

/** An admin's edit as sent: every field optional; labels as a comma list or an array. */
export interface VideoEdit {
  title?: string | undefined;
  description?: string | undefined;
  model?: string | null | undefined;
  accessLevel?: AccessLevel | undefined;
  tags?: string | string[] | undefined;
  categories?: string | string[] | undefined;
  published?: boolean | undefined;
}

/** The detail changes an edit asks for, or the first label problem. */
export function changesFrom(edit: VideoEdit): Result<Partial<VideoDetails>> {
  const changes: Partial<VideoDetails> = {};
  if (edit.title !== undefined) changes.title = edit.title;
  if (edit.description !== undefined) changes.description = edit.description;
  if (edit.model !== undefined) changes.modelName = edit.model || null;
  if (edit.accessLevel !== undefined) changes.accessLevel = edit.accessLevel;
  for (const field of ['tags', 'categories'] as const) {
    if (edit[field] === undefined) continue;
    const parsed = parseLabels(edit[field], field);
    if (!parsed.ok) return failure('validation.invalid_input', parsed.error);
    changes[field] = parsed.value;
  }
  return success(changes);
}

export async function getAnyVideo(ctx: AppContext, videoId: string): Promise<Result<ReturnType<typeof toAdminVideo>>> {
  const row = await findVideo(ctx.db, videoId, { includeUnpublished: true });
  return row ? success(toAdminVideo(row)) : failure('video.not_found', VIDEO_NOT_FOUND);
}

export async function editVideo(ctx: AppContext, videoId: string, edit: VideoEdit, caller: Caller & { actorId: string }) {
  const changes = changesFrom(edit);
  if (!changes.ok) return changes;
  const meta = eventMetadata(ctx, caller);
  const result = await videos(ctx.store).handle(
    videoId,
    { type: 'EditVideo', data: { videoId, changes: changes.value, publish: edit.published, actorId: caller.actorId, at: meta.at } },
    meta,
  );
  if (!result.ok) return result;
  return getAnyVideo(ctx, videoId);
}

export async function deleteVideo(
  ctx: AppContext,
  videoId: string,
  caller: Caller & { actorId: string },
): Promise<Result<{ videoId: string; deleted: true }>> {
  const meta = eventMetadata(ctx, caller);
  const result = await videos(ctx.store).handle(
    videoId,
    { type: 'DeleteVideo', data: { videoId, actorId: caller.actorId, at: meta.at } },
    meta,
  );
  if (!result.ok) return result;
  // The event is the truth; files go after it (a crash here leaves only orphan files, never a dangling row).
  await ctx.media.removeVideo(videoId).catch((err) => ctx.logger.warn({ err, videoId }, 'could not remove video files'));
  return success({ videoId, deleted: true });
}
