import type { AppModule } from '../module.js';
import { chatProjection } from './chat.projection.js';
import { chatHubOf, forgetChatHub } from './live.js';
import { chatRoutes } from './routes.js';

export { messagesForExport } from './chat.service.js';
export { chatAnswerTimes } from './stats.js';

export const chatModule: AppModule = {
  name: 'chat',
  projections: [chatProjection],
  routes(api, ctx) {
    chatRoutes(api, ctx);
  },
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
