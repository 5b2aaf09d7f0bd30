/**
 * The live shows module (issue 43): an owner or editor schedules a show (stream `live-show-{id}`,
 * show.decider.ts; read model `live_shows`, show.projection.ts), the creator's encoder publishes RTMP
 * to the embedded ingest (rtmpIngest.ts, in the leader process among those with LIVE_RTMP_PORT set; the key is checked
 * here before anything is stored), ffmpeg makes the live ladder (liveLadder.ts), encrypted per key
 * window into the media store, and members the spec §4 decision allows play it (routes.ts). The
 * replay becomes an unpublished library video. A room per show chats beside the player (showChat.*.ts:
 * posts, staff's deletes and mutes as events, pushed over the chat's ticketed WebSocket).
 * docs/live.md describes it for the creator and the operator.
 */
import type { AppModule } from '../kernel/module.js';
import { publishCheckRoutes } from './publishCheck.routes.js';
import { liveRoutes } from './routes.js';
import { startRtmpIngest } from './rtmpIngest.js';
import { liveShowsProjection } from './show.projection.js';
import { forgetShowChatHub, showChatHubOf } from './showChat.live.js';
import { exportShowChatData, showChatProjection } from './showChat.projection.js';
import { showChatRoutes } from './showChat.routes.js';

export const liveModule: AppModule = {
  name: 'live',
  projections: [liveShowsProjection, showChatProjection],
  exportPersonalData: exportShowChatData,
  routes(api, ctx) {
    liveRoutes(api, ctx);
    // The show's chat room (issue 43 item 4): showChat.*.ts.
    showChatRoutes(api, ctx);
    // nginx-rtmp's publish check, when it stands in front of the ingest (publishCheck.routes.ts).
    publishCheckRoutes(api, ctx);
  },
  // The ingest host is the elected leader among the processes with LIVE_RTMP_PORT set: one listener
  // for N processes on one machine, and another process takes the port over when the leader dies.
  // A port another program holds stops the ingest only, never the server (its other work goes on):
  // the error names the variable.
  async background(ctx) {
    if (!ctx.env.LIVE_RTMP_PORT) return undefined;
    try {
      return await startRtmpIngest(ctx);
    } catch (err) {
      ctx.logger.error(
        { err, port: ctx.env.LIVE_RTMP_PORT },
        'live: the RTMP ingest cannot listen on LIVE_RTMP_PORT (taken?): no show can go live through this process; free the port or set LIVE_RTMP_PORT',
      );
      return undefined;
    }
  },
  // The chat room's push to this process's sockets (on PostgreSQL: its LISTEN connection).
  async start(ctx) {
    const hub = await showChatHubOf(ctx);
    return {
      async stop() {
        forgetShowChatHub(ctx);
        await hub.stop();
      },
    };
  },
};
