/**
 * Views and watch time per video and UTC day (`streaming_video_daily`), projected from
 * `ViewRecorded` and `WatchTimeRecorded` so a rebuild gives the same figures; the admin reads them
 * summed over a period (GET /api/admin/analytics/videos). The metric names the video:
 * `views:{videoId}` (counted views) and `watch:{videoId}` (recorded seconds). No viewer is kept here.
 * Watch time starts with the first `WatchTimeRecorded`: the log holds no durations before it.
 */
import type { videoAnalyticsSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { findVideo } from '../catalog/index.js';
import type { Queryable } from '../db/types.js';
import { moveDaily } from '../eventstore/counts.js';
import type { Projection } from '../eventstore/projections.js';
import type { RecordedEvent } from '../eventstore/types.js';

const VIDEO_ANALYTICS_SCHEMA = `
CREATE TABLE IF NOT EXISTS streaming_video_daily (
  day TEXT NOT NULL,
  metric TEXT NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (day, metric)
);
`;

const add = (tx: Queryable, at: string, metric: string, value: number) =>
  moveDaily(tx, 'streaming_video_daily', at.slice(0, 10), metric, value);

export const videoAnalyticsProjection: Projection = {
  name: 'streaming-video-analytics',
  version: 1,
  tables: ['streaming_video_daily'],
  schema: VIDEO_ANALYTICS_SCHEMA,
  async apply(tx, event: RecordedEvent) {
    const data = event.data as Record<string, unknown>;
    if (event.type === 'ViewRecorded') await add(tx, String(data.viewedAt), `views:${String(data.videoId)}`, 1);
    else if (event.type === 'WatchTimeRecorded') await add(tx, String(data.at), `watch:${String(data.videoId)}`, Number(data.seconds));
  },
};

/** Each video's views and watch seconds from `from` to `to` (UTC days, both included), most watched first. */
export async function videoFigures(db: Queryable, from: string, to: string): Promise<z.infer<typeof videoAnalyticsSchema>> {
  const rows = await db.all<{ metric: string; value: number | string }>(
    'SELECT metric, SUM(value) AS value FROM streaming_video_daily WHERE day >= ? AND day <= ? GROUP BY metric',
    [from, to],
  );
  const byVideo = new Map<string, { views: number; watchSeconds: number }>();
  for (const r of rows) {
    const [kind, videoId = ''] = [r.metric.slice(0, r.metric.indexOf(':')), r.metric.slice(r.metric.indexOf(':') + 1)];
    const v = byVideo.get(videoId) ?? { views: 0, watchSeconds: 0 };
    if (kind === 'views') v.views += Number(r.value);
    else v.watchSeconds += Number(r.value);
    byVideo.set(videoId, v);
  }
  const videos = await Promise.all(
    [...byVideo].map(async ([videoId, v]) => ({
      videoId,
      // A deleted video keeps its figures; its title went with it.
      title: (await findVideo(db, videoId, { includeUnpublished: true }))?.title ?? '',
      ...v,
    })),
  );
  videos.sort((a, b) => b.watchSeconds - a.watchSeconds || b.views - a.views || a.videoId.localeCompare(b.videoId));
  return { from, to, videos };
}
