/**
 * Seek previews: a WebVTT map from time ranges to tiles of the sprite sheets ffmpeg made with the
 * renditions (`sprites/sprite-001.jpg`, 10×10 tiles of 160×90). The `#xywh=` media fragment is
 * the common convention players (video.js, JW Player, Plyr, ours) read.
 */
import { PREVIEW } from './ladder.js';

const stamp = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
};

export interface PreviewLayout {
  interval: number;
  count: number;
  width: number;
  height: number;
  columns: number;
  rows: number;
}

export function previewLayout(durationSeconds: number, interval: number): PreviewLayout {
  return { interval, count: Math.max(1, Math.ceil(durationSeconds / interval)), ...PREVIEW };
}

/**
 * The WebVTT text; sprite paths are relative to the VTT (`sprites/sprite-001.jpg#xywh=…`).
 * @example previewsVtt(previewLayout(10, 1), 10) // "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nsprites/sprite-001.jpg#xywh=0,0,160,90\n…"
 */
export function previewsVtt(layout: PreviewLayout, durationSeconds: number): string {
  const perSheet = layout.columns * layout.rows;
  const cues: string[] = [];
  for (let i = 0; i < layout.count; i++) {
    const start = i * layout.interval;
    const end = Math.min(durationSeconds, (i + 1) * layout.interval);
    if (end <= start) break;
    const sheet = Math.floor(i / perSheet) + 1;
    const tile = i % perSheet;
    const x = (tile % layout.columns) * layout.width;
    const y = Math.floor(tile / layout.columns) * layout.height;
    cues.push(
      `${stamp(start)} --> ${stamp(end)}\nsprites/sprite-${String(sheet).padStart(3, '0')}.jpg#xywh=${x},${y},${layout.width},${layout.height}`,
    );
  }
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}
