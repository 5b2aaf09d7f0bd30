/**
 * The HLS ladder a completed transcode records on its video (the `hls` column), and the `Transcode*`
 * events as the catalog projection folds them. The transcode area records these events; its decider
 * checks that what it records fits this shape (`foldedByCatalog`), so the catalog knows no transcode file.
 */
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

/** The `Transcode*` events, with the fields the catalog projection reads. */
export type TranscodeResultEvent =
  | { type: 'TranscodeStarted'; data: { videoId: string } }
  | { type: 'TranscodeProgressed'; data: { videoId: string; percent: number } }
  | { type: 'TranscodeCompleted'; data: { videoId: string; renditions: RenditionInfo[]; previews: PreviewInfo | null } }
  | { type: 'TranscodeFailed'; data: { videoId: string; error: string } }
  | { type: 'TranscodeRetried'; data: { videoId: string } };
