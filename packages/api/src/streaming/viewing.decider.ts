/**
 * View counting (spec section 9): a view counts when more than 5 s were watched, at most once per
 * viewer per video per 30 minutes. One stream per viewer and video (`video-views-{videoId}-{userId}`)
 * holds the counted views, so two concurrent posts cannot both count.
 */
import { accept, type Decider, reject } from '../shared/decider.js';

export const MIN_VIEW_SECONDS = 5;
export const VIEW_WINDOW_MS = 30 * 60 * 1000;

export const viewsStreamId = (videoId: string, userId: string) => `video-views-${videoId}-${userId}`;

export type ViewRecorded = { type: 'ViewRecorded'; data: { videoId: string; userId: string; watchedSeconds: number; viewedAt: string } };
export type RecordView = { type: 'RecordView'; data: { videoId: string; userId: string; watchedSeconds: number; at: string } };
export interface ViewsState {
  lastCountedAt: string | null;
}

export const viewingDecider: Decider<RecordView, ViewRecorded, ViewsState> = {
  initialState: () => ({ lastCountedAt: null }),
  decide(command, state) {
    const { videoId, userId, watchedSeconds, at } = command.data;
    if (!Number.isFinite(watchedSeconds) || watchedSeconds < 0)
      return reject('validation.invalid_input', 'duration must be a number of seconds');
    if (watchedSeconds <= MIN_VIEW_SECONDS) return accept();
    if (state.lastCountedAt && Date.parse(at) - Date.parse(state.lastCountedAt) < VIEW_WINDOW_MS) return accept();
    return accept({ type: 'ViewRecorded', data: { videoId, userId, watchedSeconds, viewedAt: at } });
  },
  evolve: (state, event) => (event.type === 'ViewRecorded' ? { lastCountedAt: event.data.viewedAt } : state),
};
