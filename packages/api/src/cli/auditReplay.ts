/**
 * `pnpm cli audit replay --to POSITION|DATE [--format csv|json|ndjson] [--store URL]`: the state of
 * every subscription as it was at that point in the log.
 */
import { formatRows, parseFormat, parseReplayPoint, SUBSCRIPTION_AT_COLUMNS, subscriptionsAt } from '../audit/index.js';
import { parseFlags, writeChunks } from './args.js';
import { openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';

export const auditReplay: CliCommand = {
  summary: 'every subscription as it was at a point: --to POSITION|DATE [--format csv|json|ndjson]',
  async run({ env, args }) {
    const { flags } = parseFlags(args);
    const point = flags.to ? parseReplayPoint(flags.to) : undefined;
    const format = parseFormat(flags.format, 'csv');
    if (!point || !format) {
      console.error('Usage: audit replay --to POSITION|DATE [--format csv|json|ndjson]');
      return 2;
    }
    const opened = await openAuditStore(env, flags, { readable: true });
    try {
      const { ledger, rows } = await subscriptionsAt(opened.store, point);
      console.error(`Replayed ${ledger.events} events up to position ${ledger.position}`);
      await writeChunks(formatRows(rows, format, SUBSCRIPTION_AT_COLUMNS));
      return 0;
    } finally {
      await opened.close();
    }
  },
};
