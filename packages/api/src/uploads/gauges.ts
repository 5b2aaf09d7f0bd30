/**
 * Resumable uploads begun and not finished nor expired, on every process of the site (from the
 * database at scrape time): the `kind="tus"` series of metrics' `uploads_in_progress`.
 */
import type { AppContext } from '../kernel/context.js';
import type { ModuleGauge } from '../metrics/index.js';
import { countUnfinished, UPLOAD_EXPIRY_MS } from './tusRecords.js';

export function uploadsGauges(ctx: AppContext): ModuleGauge[] {
  return [
    {
      name: 'uploads_in_progress',
      help: 'Video uploads in progress',
      labelNames: ['kind'],
      read: async () => [{ labels: { kind: 'tus' }, value: await countUnfinished(ctx.db, ctx.clock.now(), UPLOAD_EXPIRY_MS) }],
    },
  ];
}
