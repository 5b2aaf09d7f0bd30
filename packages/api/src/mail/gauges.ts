/** The outbox on /metrics: e-mails not sent yet, read at scrape time. */
import type { AppContext } from '../kernel/context.js';
import type { ModuleGauge } from '../metrics/index.js';

export function mailGauges(ctx: AppContext): ModuleGauge[] {
  return [
    {
      name: 'mail_outbox_unsent',
      help: 'E-mails in the outbox not sent yet (queued or retrying)',
      read: async () => {
        const row = await ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM mail_outbox WHERE sent_at IS NULL');
        return Number(row?.n ?? 0);
      },
    },
  ];
}
