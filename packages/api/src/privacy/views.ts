/**
 * The member's views for their data export: the `ViewRecorded` events of every stream
 * `video-views-{videoId}-{userId}` (streaming/viewing.decider.ts's `viewsStreamId`), read from the
 * log through the event store's `readStreamsMatching`: views have no read model per member, and
 * nothing of them is erased (a view holds ids, a duration and a time). Given as the privacy module's
 * own part; streaming/ is to take it over as its `exportPersonalData` (issue 39).
 */

import { readStreamsMatching } from '../eventstore/sqlEventStore.js';
import type { AppContext } from '../kernel/context.js';
import type { MemberExport } from '../kernel/module.js';

export async function exportViews(ctx: AppContext, userId: string): Promise<Partial<MemberExport>> {
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
