/**
 * The member's views and watch time for their data export: the `ViewRecorded` events of every
 * stream `video-views-{videoId}-{userId}` (streaming/viewing.decider.ts's `viewsStreamId`) and the
 * `WatchTimeRecorded` events of every `video-watch-{videoId}-{userId}` (watchTime.decider.ts), read
 * from the log through the event store's `readStreamsMatching`: neither has a read model per member,
 * and nothing of them is erased (each holds ids, seconds and a time). Given as the privacy module's
 * own part; streaming/ is to take it over as its `exportPersonalData` (issue 39).
 */

import { readStreamsMatching } from '../eventstore/sqlEventStore.js';
import type { AppContext } from '../kernel/context.js';
import type { MemberExport } from '../kernel/module.js';

export async function exportViews(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
  const events = await ctx.shredder.open(ctx.db, await readStreamsMatching(ctx.db, 'video-views-', `-${userId}`));
  const watched = await ctx.shredder.open(ctx.db, await readStreamsMatching(ctx.db, 'video-watch-', `-${userId}`));
  return {
    views: events
      .filter((e) => e.type === 'ViewRecorded')
      .map((e) => {
        const d = e.data as Record<string, unknown>;
        return { videoId: String(d.videoId), watchedSeconds: Number(d.watchedSeconds), viewedAt: String(d.viewedAt) };
      }),
    watchTime: watched
      .filter((e) => e.type === 'WatchTimeRecorded')
      .map((e) => {
        const d = e.data as Record<string, unknown>;
        return { videoId: String(d.videoId), seconds: Number(d.seconds), at: String(d.at) };
      }),
  };
}
