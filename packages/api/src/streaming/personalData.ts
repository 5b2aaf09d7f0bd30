/**
 * Streaming's part of a member's data export (AppModule.exportPersonalData; the privacy module runs
 * it): the views it counted, one stream per video they watched (viewing.decider.ts's `viewsStreamId`). An
 * erasure needs nothing here: a view holds ids, a duration and a time.
 */
import type { AppContext } from '../context.js';
import { readStreamsMatching } from '../eventstore/sqlEventStore.js';
import type { MemberExport } from '../module.js';

export async function exportStreamingData(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  // Every `viewsStreamId(videoId, userId)`, whatever the video.
  const events = await ctx.shredder.open(ctx.db, await readStreamsMatching(ctx.db, 'video-views-', `-${userId}`));
  return {
    views: events
      .filter((e) => e.type === 'ViewRecorded')
      .map((e) => {
        const d = e.data as Record<string, unknown>;
        return { videoId: String(d.videoId), watchedSeconds: Number(d.watchedSeconds), viewedAt: String(d.viewedAt) };
      }),
  };
}
