/**
 * The chat module (issue 30): one conversation per member with the site's team, as events
 * (chat.decider.ts), its read model (chat.projection.ts), the routes (routes.ts; the team's: adminChat.routes.ts; the WebSocket: socket.routes.ts), the live push
 * to WebSockets across processes (live.ts) and the mail to a member offline when the team replies
 * (replyMail.ts, with its setting: replyMail.routes.ts). docs/chat.md describes it.
 */
import type { AppModule } from '../kernel/module.js';
import { adminChatRoutes } from './adminChat.routes.js';
import { chatProjection } from './chat.projection.js';
import { chatHubOf, forgetChatHub } from './live.js';
import { exportChatData } from './personalData.js';
import { replyBurstSubscriber, startReplyMailer } from './replyMail.js';
import { replyMailRoutes } from './replyMail.routes.js';
import { chatRoutes } from './routes.js';
import { chatSocketRoutes } from './socket.routes.js';

// The ticketed WebSocket's pieces, for the live show's chat room (live/showChat.routes.ts): the same tickets, origins and standing.
export {
  admitSocketHandshake,
  holderStands,
  redeemStandingTicket,
  SESSION_ENDED_CLOSE,
  SOCKET_SESSION_RECHECK_MS,
} from './socket.routes.js';
export { chatAnswerTimes } from './stats.js';
export type { TicketHolder } from './tickets.js';

export const chatModule: AppModule = {
  name: 'chat',
  projections: [chatProjection],
  subscribers: (ctx) => [replyBurstSubscriber(ctx)],
  exportPersonalData: exportChatData,
  routes(api, ctx) {
    chatRoutes(api, ctx);
    chatSocketRoutes(api, ctx);
    adminChatRoutes(api, ctx);
    replyMailRoutes(api, ctx);
  },
  background: (ctx) => startReplyMailer(ctx),
  async start(ctx) {
    const hub = await chatHubOf(ctx);
    return {
      async stop() {
        forgetChatHub(ctx);
        await hub.stop();
      },
    };
  },
};
