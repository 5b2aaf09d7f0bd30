/**
 * The HLS ladder a completed transcode records on its video (the `hls` column), and the `Transcode*`
 * events as the catalog projection folds them. The transcode area records these events; its decider
 * checks that what it records fits this shape (`foldedByCatalog`), so the catalog knows no transcode file.
 */
import type { transcodeStateSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';

export interface RenditionInfo {
  name: string;
  width: number;
  height: number;
  /** Peak bit/s, as the master playlist's BANDWIDTH. */
  bandwidth: number;
  /** RFC 6381 codecs, as the master playlist's CODECS. */
  codecs: string;
  /** `{name}/progressive.mp4` was written (ladders transcoded before it existed have none: HLS only). */
  progressive?: boolean;
}

export interface PreviewInfo {
  interval: number;
  count: number;
  width: number;
  height: number;
  columns: number;
  rows: number;
}

/**
 * The one vocabulary of a video's transcode, wherever it is read: the transcode decider's state
 * (`TranscodeState.status`), the `transcode_status` column the catalog projection keeps with
 * `transcodeStatusAfter`, and the admin's `transcode.status`. `queued`: no attempt running (none
 * yet, or a failed one retried); the queue's own job rows (transcode/transcodeJobs.ts `JobState`)
 * are lease mechanics, not a video's status. The wire contract (`transcodeStateSchema`) is its source.
 */
export type TranscodeStatus = z.infer<typeof transcodeStateSchema>['status'];

/** What a video's transcode read model holds after each `Transcode*` event (fields left out keep their value). */
export function transcodeStatusAfter(event: TranscodeResultEvent): {
  status?: TranscodeStatus;
  progress?: number;
  error?: string | null;
  ladder?: { renditions: RenditionInfo[]; previews: PreviewInfo | null };
} {
  switch (event.type) {
    case 'TranscodeStarted':
      return { status: 'running', progress: 0, error: null };
    case 'TranscodeProgressed':
      return { progress: event.data.percent };
    case 'TranscodeCompleted':
      return {
        status: 'completed',
        progress: 100,
        error: null,
        ladder: { renditions: event.data.renditions, previews: event.data.previews },
      };
    case 'TranscodeFailed':
      return { status: 'failed', error: event.data.error };
    case 'TranscodeRetried':
      // The earlier ladder (if any) keeps playing until the new one replaces it.
      return { status: 'queued', progress: 0, error: null };
  }
}

/** The `Transcode*` events, with the fields the catalog projection reads. */
export type TranscodeResultEvent =
  | { type: 'TranscodeStarted'; data: { videoId: string } }
  | { type: 'TranscodeProgressed'; data: { videoId: string; percent: number } }
  | { type: 'TranscodeCompleted'; data: { videoId: string; renditions: RenditionInfo[]; previews: PreviewInfo | null } }
  | { type: 'TranscodeFailed'; data: { videoId: string; error: string } }
  | { type: 'TranscodeRetried'; data: { videoId: string } };
