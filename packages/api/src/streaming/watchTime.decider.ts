/**
 * Watch time: the player reports the seconds it played (every 30 s of playback and when paused or
 * left). One stream per viewer and video (`video-watch-{videoId}-{userId}`) holds the recorded
 * reports; a report is credited at most the seconds since the viewer's previous recorded report
 * (and at most MAX_REPORT_SECONDS), so however often one member reports, a video's watch time grows
 * no faster than wall time per viewer.
 */
import { accept, type Decider, reject } from '../shared/decider.js';

/** The most one report may carry (the player reports every 30 s; 60 leaves room for a late timer). */
export const MAX_REPORT_SECONDS = 60;

export const watchTimeStreamId = (videoId: string, userId: string) => `video-watch-${videoId}-${userId}`;

export type WatchTimeRecorded = { type: 'WatchTimeRecorded'; data: { videoId: string; userId: string; seconds: number; at: string } };
export type RecordWatchTime = { type: 'RecordWatchTime'; data: { videoId: string; userId: string; seconds: number; at: string } };
export interface WatchTimeState {
  lastReportAt: string | null;
}

/** The seconds a report at `at` may be credited after a recorded report at `lastReportAt` (pure). */
export function creditableSeconds(lastReportAt: string | null, at: string): number {
  if (!lastReportAt) return MAX_REPORT_SECONDS;
  const elapsed = Math.floor((Date.parse(at) - Date.parse(lastReportAt)) / 1000);
  return Math.max(0, Math.min(MAX_REPORT_SECONDS, elapsed));
}

export const watchTimeDecider: Decider<RecordWatchTime, WatchTimeRecorded, WatchTimeState> = {
  initialState: () => ({ lastReportAt: null }),
  decide(command, state) {
    const { videoId, userId, seconds, at } = command.data;
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_REPORT_SECONDS)
      return reject('validation.invalid_input', `seconds must be a whole number from 0 to ${MAX_REPORT_SECONDS}`);
    const credited = Math.min(seconds, creditableSeconds(state.lastReportAt, at));
    if (credited === 0) return accept();
    return accept({ type: 'WatchTimeRecorded', data: { videoId, userId, seconds: credited, at } });
  },
  evolve: (state, event) => (event.type === 'WatchTimeRecorded' ? { lastReportAt: event.data.at } : state),
};
