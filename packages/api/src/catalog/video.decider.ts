/**
 * The video aggregate (stream `video-{id}`): uploaded once, then edited, published or unpublished,
 * and finally deleted. Pure: time and actor arrive inside the command.
 */
import { accept, type Decider, reject } from '../shared/decider.js';

export type AccessLevel = 'free' | 'premium' | 'vip';
export const ACCESS_LEVELS: readonly AccessLevel[] = ['free', 'premium', 'vip'];

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
};

export type VideoUploaded = {
  type: 'VideoUploaded';
  data: VideoDetails & {
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
  | VideoDeleted
  | CaptionTrackAdded
  | CaptionTrackRemoved;

export type VideoCommand =
  /** `unpublished`: recorded hidden from members (an import the admin reviews first), in the same append. */
  | { type: 'RecordUpload'; data: VideoUploaded['data']; unpublished?: boolean }
  | { type: 'EditVideo'; data: { videoId: string; changes: Partial<VideoDetails>; publish?: boolean; actorId: string; at: string } }
  | { type: 'DeleteVideo'; data: { videoId: string; actorId: string; at: string } }
  | { type: 'AddCaptionTrack'; data: { videoId: string; track: CaptionTrack; actorId: string; at: string } }
  | { type: 'RemoveCaptionTrack'; data: { videoId: string; language: string; actorId: string; at: string } };

export interface VideoState {
  status: 'none' | 'active' | 'deleted';
  published: boolean;
  details: VideoDetails | null;
  /** The stored key of each language's track. */
  captions: Record<string, string>;
}

export const CAPTION_NOT_FOUND = 'Caption track not found';

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
  initialState: () => ({ status: 'none', published: false, details: null, captions: {} }),

  decide(command, state) {
    if (command.type === 'RecordUpload') {
      if (state.status !== 'none') return reject('video.exists', 'This video already exists');
      const uploaded: VideoEvent = { type: 'VideoUploaded', data: command.data };
      if (!command.unpublished) return accept(uploaded);
      const { videoId, uploadedBy, uploadedAt } = command.data;
      return accept<VideoEvent>(uploaded, {
        type: 'VideoUnpublished',
        data: { videoId, unpublishedBy: uploadedBy, unpublishedAt: uploadedAt },
      });
    }
    if (state.status !== 'active' || !state.details) return reject('video.not_found', 'Video not found');
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
    const changes = realChanges(state.details, command.data.changes);
    if (Object.keys(changes).length > 0)
      events.push({ type: 'VideoUpdated', data: { videoId, changes, updatedBy: actorId, updatedAt: at } });
    if (command.data.publish === true && !state.published)
      events.push({ type: 'VideoPublished', data: { videoId, publishedBy: actorId, publishedAt: at } });
    if (command.data.publish === false && state.published)
      events.push({ type: 'VideoUnpublished', data: { videoId, unpublishedBy: actorId, unpublishedAt: at } });
    return accept(...events);
  },

  evolve(state, event) {
    switch (event.type) {
      case 'VideoUploaded': {
        const { title, description, modelName, accessLevel, tags, categories } = event.data;
        return {
          status: 'active',
          published: true,
          details: { title, description, modelName, accessLevel, tags, categories },
          captions: {},
        };
      }
      case 'VideoUpdated':
        return state.details ? { ...state, details: { ...state.details, ...event.data.changes } } : state;
      case 'VideoPublished':
        return { ...state, published: true };
      case 'VideoUnpublished':
        return { ...state, published: false };
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
