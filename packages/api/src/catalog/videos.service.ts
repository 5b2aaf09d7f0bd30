/**
 * The admin's catalog use cases: edit a video's details, access level, exclusivity, publication and
 * release schedule (video.decider.ts says what a `publishAt` does); release a due video (the leader's job); delete it
 * (files removed after the event is recorded). Uploads enter through `ingestVideoFile` (ingest.ts),
 * shared by the multipart route and the resumable uploads. Each answers a `Result`.
 */
import type { AppContext } from '../kernel/context.js';
import { type Caller, eventMetadata } from '../shared/eventMetadata.js';
import { failure, type Result, success } from '../shared/result.js';
import { findVideo, toAdminVideo } from './catalog.queries.js';
import { videos } from './video.commands.js';
import { type AccessLevel, type ExclusiveTo, RELEASE_ACTOR, type VideoDetails } from './video.decider.js';
import { parseLabels, parsePublishAt } from './videoInput.js';

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
  exclusiveTo?: ExclusiveTo | undefined;
  /** ISO 8601 with an offset; null clears the schedule. */
  publishAt?: string | null | undefined;
}

/** The detail changes an edit asks for, or the first label problem. */
export function changesFrom(edit: VideoEdit): Result<Partial<VideoDetails>> {
  const changes: Partial<VideoDetails> = {};
  if (edit.title !== undefined) changes.title = edit.title;
  if (edit.description !== undefined) changes.description = edit.description;
  if (edit.model !== undefined) changes.modelName = edit.model || null;
  if (edit.accessLevel !== undefined) changes.accessLevel = edit.accessLevel;
  if (edit.exclusiveTo !== undefined) changes.exclusiveTo = edit.exclusiveTo;
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
  let publishAt: string | null | undefined;
  if (edit.publishAt !== undefined) {
    const parsed = parsePublishAt(edit.publishAt);
    if (!parsed.ok) return failure('validation.invalid_input', parsed.error);
    publishAt = parsed.value;
  }
  const meta = eventMetadata(ctx, caller);
  const result = await videos(ctx.store).handle(
    videoId,
    {
      type: 'EditVideo',
      data: { videoId, changes: changes.value, publish: edit.published, publishAt, actorId: caller.actorId, at: meta.at },
    },
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

/**
 * Publishes a scheduled video whose time has come (the release job, releases.job.ts). The decider records
 * nothing when it is already out, and the append's expected version makes a second leader's attempt a
 * conflict, never a second `VideoPublished`.
 */
export async function releaseVideo(ctx: AppContext, videoId: string): Promise<Result<{ released: boolean }>> {
  const meta = eventMetadata(ctx, { actorId: null, actor: RELEASE_ACTOR });
  const result = await videos(ctx.store).handle(videoId, { type: 'ReleaseVideo', data: { videoId, at: meta.at } }, meta);
  if (!result.ok) return result;
  return success({ released: result.events.length > 0 });
}
