/**
 * The transcode of one video into its HLS ladder (stream `transcode-{videoId}`): each attempt is
 * started, progresses sparsely, and completes or fails with ffmpeg's message; an admin may retry a
 * failed one. An attempt interrupted by a restart is simply started again (a higher attempt
 * number), so events of a dead attempt can never complete a newer one. Pure.
 */
import type { PreviewInfo, RenditionInfo, TranscodeResultEvent, TranscodeStatus } from '../catalog/index.js';
import { accept, type Decider, reject } from '../shared/decider.js';

export const transcodeStreamId = (videoId: string) => `transcode-${videoId}`;

// The ladder's shape is the catalog's: it stores the completed ladder on the video.
export type { PreviewInfo, RenditionInfo };

export type TranscodeStarted = {
  type: 'TranscodeStarted';
  data: { videoId: string; attempt: number; renditions: string[]; startedAt: string };
};
export type TranscodeProgressed = {
  type: 'TranscodeProgressed';
  data: { videoId: string; attempt: number; percent: number; at: string };
};
export type TranscodeCompleted = {
  type: 'TranscodeCompleted';
  data: {
    videoId: string;
    attempt: number;
    renditions: RenditionInfo[];
    previews: PreviewInfo | null;
    /** Bytes of every rendition, segment and sprite written. */
    totalBytes: number;
    /** Wall-clock seconds ffmpeg ran. */
    ffmpegSeconds: number;
    completedAt: string;
  };
};
export type TranscodeFailed = {
  type: 'TranscodeFailed';
  data: { videoId: string; attempt: number; error: string; failedAt: string };
};
export type TranscodeRetried = { type: 'TranscodeRetried'; data: { videoId: string; retriedBy: string; retriedAt: string } };

export type TranscodeEvent = TranscodeStarted | TranscodeProgressed | TranscodeCompleted | TranscodeFailed | TranscodeRetried;

/** What this area records is what the catalog projection folds (checked here, where both are seen). */
export const foldedByCatalog = (event: TranscodeEvent): TranscodeResultEvent => event;

export type TranscodeCommand =
  | { type: 'StartTranscode'; data: { videoId: string; renditions: string[]; at: string } }
  | { type: 'RecordProgress'; data: { videoId: string; attempt: number; percent: number; at: string } }
  | { type: 'CompleteTranscode'; data: Omit<TranscodeCompleted['data'], 'completedAt'> & { at: string } }
  | { type: 'FailTranscode'; data: { videoId: string; attempt: number; error: string; at: string } }
  | { type: 'RetryTranscode'; data: { videoId: string; actorId: string; at: string } };

export interface TranscodeState {
  /** The video's transcode status (catalog/ladder.ts): `queued` before the first attempt and after a retry. */
  status: TranscodeStatus;
  attempt: number;
  percent: number;
}

/** ffmpeg's messages can be long; the event keeps the end, where the reason is. */
export const MAX_ERROR_CHARS = 2000;

export const transcodeDecider: Decider<TranscodeCommand, TranscodeEvent, TranscodeState> = {
  initialState: () => ({ status: 'queued', attempt: 0, percent: 0 }),

  decide(command, state) {
    const { videoId, at } = command.data;
    switch (command.type) {
      case 'StartTranscode':
        if (state.status === 'completed') return reject('transcode.state_conflict', 'This video is already transcoded');
        if (state.status === 'failed') return reject('transcode.state_conflict', 'This transcode failed; retry it first');
        return accept({
          type: 'TranscodeStarted',
          data: { videoId, attempt: state.attempt + 1, renditions: command.data.renditions, startedAt: at },
        });
      case 'RecordProgress': {
        const percent = Math.floor(command.data.percent);
        if (state.status !== 'running' || command.data.attempt !== state.attempt)
          return reject('transcode.state_conflict', 'No such transcode attempt running');
        if (!(percent > state.percent && percent < 100)) return accept();
        return accept({ type: 'TranscodeProgressed', data: { videoId, attempt: state.attempt, percent, at } });
      }
      case 'CompleteTranscode': {
        if (state.status !== 'running' || command.data.attempt !== state.attempt)
          return reject('transcode.state_conflict', 'No such transcode attempt running');
        const { at: completedAt, ...rest } = command.data;
        if (rest.renditions.length === 0) return reject('validation.invalid_input', 'A transcode produces at least one rendition');
        return accept({ type: 'TranscodeCompleted', data: { ...rest, completedAt } });
      }
      case 'FailTranscode':
        if (state.status !== 'running' || command.data.attempt !== state.attempt)
          return reject('transcode.state_conflict', 'No such transcode attempt running');
        return accept({
          type: 'TranscodeFailed',
          data: { videoId, attempt: state.attempt, error: command.data.error.slice(-MAX_ERROR_CHARS), failedAt: at },
        });
      case 'RetryTranscode':
        if (state.status !== 'failed') return reject('transcode.state_conflict', 'Only a failed transcode can be retried');
        return accept({ type: 'TranscodeRetried', data: { videoId, retriedBy: command.data.actorId, retriedAt: at } });
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'TranscodeStarted':
        return { status: 'running', attempt: event.data.attempt, percent: 0 };
      case 'TranscodeProgressed':
        return { ...state, percent: event.data.percent };
      case 'TranscodeCompleted':
        return { ...state, status: 'completed', percent: 100 };
      case 'TranscodeFailed':
        return { ...state, status: 'failed' };
      case 'TranscodeRetried':
        return { ...state, status: 'queued', percent: 0 };
      default:
        return state;
    }
  },
};
