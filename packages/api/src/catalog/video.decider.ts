/**
 * The video aggregate (stream `video-{id}`): uploaded once, then edited, published or unpublished,
 * scheduled, released, and finally deleted. Pure: time and actor arrive inside the command.
 *
 * Scheduled releases (issue 40): `VideoReleaseScheduled { publishAt }` records the schedule (null
 * clears it). A future `publishAt` keeps the video unpublished (unpublishing it if it was published)
 * until the release job's `ReleaseVideo` records `VideoPublished` with `publishedAt` = the schedule's
 * time; a `publishAt` already past publishes it at once, as of that time (an upload held back for
 * review, the CLI import's default, is published by the release job then). Publishing by hand
 * (`published: true`) a video scheduled for later moves its schedule to now; unpublishing it by hand
 * (`published: false`) clears its schedule, so nothing publishes it again but the admin.
 */
import { accept, type Decider, reject } from '../shared/decider.js';

export type AccessLevel = 'free' | 'premium' | 'vip';
export const ACCESS_LEVELS: readonly AccessLevel[] = ['free', 'premium', 'vip'];
/** Behind-the-scenes: only annual subscribers may watch it (null: the access level decides). */
export type ExclusiveTo = 'annual' | null;
export const EXCLUSIVE_TO: readonly Exclude<ExclusiveTo, null>[] = ['annual'];
/** Who records a scheduled release (the leader's release job, `releases.ts`). */
export const RELEASE_ACTOR = 'release-scheduler';

export const videoStreamId = (videoId: string) => `video-${videoId}`;

export type VideoFileInfo = {
  key: string;
  size: number;
  mimeType: string;
  container: string;
  codec: string;
  audioCodec: string | null;
  width: number;
  height: number;
};

export type ThumbnailInfo = {
  key: string;
  mimeType: string;
  /** True when ffmpeg took it from the video (no image was uploaded). */
  extracted: boolean;
};

/** The editable fields of a video. */
export type VideoDetails = {
  title: string;
  description: string;
  modelName: string | null;
  accessLevel: AccessLevel;
  tags: string[];
  categories: string[];
  /** Events recorded before issue 40 have none: read as null. */
  exclusiveTo: ExclusiveTo;
};

export type VideoUploaded = {
  type: 'VideoUploaded';
  data: Omit<VideoDetails, 'exclusiveTo'> & {
    /** Absent on events recorded before issue 40 (null). */
    exclusiveTo?: ExclusiveTo;
    videoId: string;
    /** Real duration from ffprobe, in seconds (rounded). */
    durationSeconds: number;
    /** What the admin typed (mm:ss), kept for the record; the probed duration wins. */
    typedDuration: string | null;
    video: VideoFileInfo;
    thumbnail: ThumbnailInfo;
    uploadedBy: string;
    uploadedAt: string;
  };
};
export type VideoUpdated = {
  type: 'VideoUpdated';
  data: { videoId: string; changes: Partial<VideoDetails>; updatedBy: string; updatedAt: string };
};
export type VideoPublished = { type: 'VideoPublished'; data: { videoId: string; publishedBy: string; publishedAt: string } };
export type VideoUnpublished = { type: 'VideoUnpublished'; data: { videoId: string; unpublishedBy: string; unpublishedAt: string } };
/** The release schedule (ISO 8601, UTC); `publishAt` null clears it. */
export type VideoReleaseScheduled = {
  type: 'VideoReleaseScheduled';
  data: { videoId: string; publishAt: string | null; scheduledBy: string; scheduledAt: string };
};
export type VideoDeleted = { type: 'VideoDeleted'; data: { videoId: string; deletedBy: string; deletedAt: string } };

/** A caption track as recorded: the cleaned WebVTT in the media store under `key`. */
export type CaptionTrack = {
  /** Canonical BCP 47 tag (`en`, `pt-BR`). */
  language: string;
  label: string;
  /** `videos/{id}/captions/{language}.{hash}.vtt` (media/storage.ts). */
  key: string;
  /** What the admin sent (`srt` is stored converted to WebVTT). */
  format: 'vtt' | 'srt';
  cues: number;
};
export type CaptionTrackAdded = {
  type: 'CaptionTrackAdded';
  /** The same language again replaces the earlier track. */
  data: CaptionTrack & { videoId: string; addedBy: string; addedAt: string };
};
export type CaptionTrackRemoved = {
  type: 'CaptionTrackRemoved';
  data: { videoId: string; language: string; key: string; removedBy: string; removedAt: string };
};

export type VideoEvent =
  | VideoUploaded
  | VideoUpdated
  | VideoPublished
  | VideoUnpublished
  | VideoReleaseScheduled
  | VideoDeleted
  | CaptionTrackAdded
  | CaptionTrackRemoved;

export type VideoCommand =
  /**
   * `unpublished`: recorded hidden from members (an import the admin reviews first), in the same append;
   * `publishAt` (ISO 8601, UTC): scheduled, in the same append.
   */
  | { type: 'RecordUpload'; data: VideoUploaded['data']; unpublished?: boolean; publishAt?: string | null }
  | {
      type: 'EditVideo';
      data: {
        videoId: string;
        changes: Partial<VideoDetails>;
        publish?: boolean | undefined;
        /** ISO 8601 UTC; null clears the schedule; undefined leaves it. */
        publishAt?: string | null | undefined;
        actorId: string;
        at: string;
      };
    }
  /** The release job: publish the video if its schedule's time has come (nothing otherwise). */
  | { type: 'ReleaseVideo'; data: { videoId: string; at: string } }
  | { type: 'DeleteVideo'; data: { videoId: string; actorId: string; at: string } }
  | { type: 'AddCaptionTrack'; data: { videoId: string; track: CaptionTrack; actorId: string; at: string } }
  | { type: 'RemoveCaptionTrack'; data: { videoId: string; language: string; actorId: string; at: string } };

export interface VideoState {
  status: 'none' | 'active' | 'deleted';
  published: boolean;
  details: VideoDetails | null;
  /** The release schedule, ISO 8601 UTC; null: none. */
  publishAt: string | null;
  /** The stored key of each language's track. */
  captions: Record<string, string>;
}

export const CAPTION_NOT_FOUND = 'Caption track not found';
export const PUBLISH_CONFLICT_LATER = 'published: true and a future publishAt contradict each other: send one of them';
export const PUBLISH_CONFLICT_PAST = 'published: false and a past publishAt contradict each other (a past publishAt publishes the video)';

const isFuture = (publishAt: string, at: string) => Date.parse(publishAt) > Date.parse(at);

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Only the fields that really change, so an idempotent PUT records nothing. */
function realChanges(current: VideoDetails, changes: Partial<VideoDetails>): Partial<VideoDetails> {
  const out: Partial<VideoDetails> = {};
  for (const [k, v] of Object.entries(changes) as [keyof VideoDetails, VideoDetails[keyof VideoDetails]][]) {
    if (v === undefined) continue;
    const cur = current[k];
    const same = Array.isArray(v) && Array.isArray(cur) ? sameList(v, cur) : v === cur;
    if (!same) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

export const videoDecider: Decider<VideoCommand, VideoEvent, VideoState> = {
  initialState: () => ({ status: 'none', published: false, details: null, publishAt: null, captions: {} }),

  decide(command, state) {
    if (command.type === 'RecordUpload') {
      if (state.status !== 'none') return reject('video.exists', 'This video already exists');
      const uploaded: VideoEvent = { type: 'VideoUploaded', data: command.data };
      const { videoId, uploadedBy, uploadedAt } = command.data;
      const events: VideoEvent[] = [uploaded];
      if (command.unpublished)
        events.push({ type: 'VideoUnpublished', data: { videoId, unpublishedBy: uploadedBy, unpublishedAt: uploadedAt } });
      const publishAt = command.publishAt;
      if (publishAt) {
        events.push({ type: 'VideoReleaseScheduled', data: { videoId, publishAt, scheduledBy: uploadedBy, scheduledAt: uploadedAt } });
        // Uploaded for later: hidden until the release job publishes it (a held-back import too, at its time).
        if (!command.unpublished && isFuture(publishAt, uploadedAt))
          events.push({ type: 'VideoUnpublished', data: { videoId, unpublishedBy: uploadedBy, unpublishedAt: uploadedAt } });
      }
      return accept(...events);
    }
    if (state.status !== 'active' || !state.details) return reject('video.not_found', 'Video not found');
    if (command.type === 'ReleaseVideo') {
      const { videoId, at } = command.data;
      // Already out (another leader's tick, or an admin), or no longer due: nothing to record.
      if (state.published || !state.publishAt || isFuture(state.publishAt, at)) return accept();
      return accept<VideoEvent>({ type: 'VideoPublished', data: { videoId, publishedBy: RELEASE_ACTOR, publishedAt: state.publishAt } });
    }
    const { videoId, actorId, at } = command.data;
    if (command.type === 'DeleteVideo')
      return accept<VideoEvent>({ type: 'VideoDeleted', data: { videoId, deletedBy: actorId, deletedAt: at } });
    if (command.type === 'AddCaptionTrack')
      return accept<VideoEvent>({ type: 'CaptionTrackAdded', data: { ...command.data.track, videoId, addedBy: actorId, addedAt: at } });
    if (command.type === 'RemoveCaptionTrack') {
      const key = state.captions[command.data.language];
      if (!key) return reject('caption.not_found', CAPTION_NOT_FOUND);
      return accept<VideoEvent>({
        type: 'CaptionTrackRemoved',
        data: { videoId, language: command.data.language, key, removedBy: actorId, removedAt: at },
      });
    }

    const events: VideoEvent[] = [];
    const { publish, publishAt } = command.data;
    if (publishAt) {
      const future = isFuture(publishAt, at);
      if (publish === true && future) return reject('validation.invalid_input', PUBLISH_CONFLICT_LATER);
      if (publish === false && !future) return reject('validation.invalid_input', PUBLISH_CONFLICT_PAST);
    }
    const changes = realChanges(state.details, command.data.changes);
    if (Object.keys(changes).length > 0)
      events.push({ type: 'VideoUpdated', data: { videoId, changes, updatedBy: actorId, updatedAt: at } });
    const schedule = (to: string | null) =>
      events.push({ type: 'VideoReleaseScheduled', data: { videoId, publishAt: to, scheduledBy: actorId, scheduledAt: at } });
    if (publishAt) {
      if (publishAt !== state.publishAt) schedule(publishAt);
      if (isFuture(publishAt, at)) {
        // Hidden until its time: the release job publishes it then.
        if (state.published) events.push({ type: 'VideoUnpublished', data: { videoId, unpublishedBy: actorId, unpublishedAt: at } });
      } else if (!state.published)
        // A time already past publishes it at once, as of that time (each plan's delay counts from it).
        events.push({ type: 'VideoPublished', data: { videoId, publishedBy: actorId, publishedAt: publishAt } });
      return accept(...events);
    }
    if (publishAt === null && state.publishAt !== null) schedule(null);
    const scheduled = publishAt === undefined && state.publishAt !== null;
    if (publish === true && !state.published) {
      // Published by hand before its time: the schedule (and each plan's delay) counts from now.
      if (scheduled && isFuture(state.publishAt as string, at)) schedule(at);
      events.push({ type: 'VideoPublished', data: { videoId, publishedBy: actorId, publishedAt: at } });
    }
    if (publish === false) {
      if (state.published) events.push({ type: 'VideoUnpublished', data: { videoId, unpublishedBy: actorId, unpublishedAt: at } });
      // Held back by hand: the schedule goes too, or the release job would publish it again.
      if (scheduled) schedule(null);
    }
    return accept(...events);
  },

  evolve(state, event) {
    switch (event.type) {
      case 'VideoUploaded': {
        const { title, description, modelName, accessLevel, tags, categories, exclusiveTo } = event.data;
        return {
          status: 'active',
          published: true,
          details: { title, description, modelName, accessLevel, tags, categories, exclusiveTo: exclusiveTo ?? null },
          publishAt: null,
          captions: {},
        };
      }
      case 'VideoUpdated':
        return state.details ? { ...state, details: { ...state.details, ...event.data.changes } } : state;
      case 'VideoPublished':
        return { ...state, published: true };
      case 'VideoUnpublished':
        return { ...state, published: false };
      case 'VideoReleaseScheduled':
        return { ...state, publishAt: event.data.publishAt };
      case 'VideoDeleted':
        return { ...state, status: 'deleted', published: false };
      case 'CaptionTrackAdded':
        return { ...state, captions: { ...state.captions, [event.data.language]: event.data.key } };
      case 'CaptionTrackRemoved': {
        const { [event.data.language]: _removed, ...captions } = state.captions;
        return { ...state, captions };
      }
      default:
        return state;
    }
  },
};
