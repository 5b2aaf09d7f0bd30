/**
 * `pnpm cli audit payments [--from DATE] [--to DATE] [--format csv|json|ndjson] [--store URL]`: the
 * full payment history replayed from events, streamed to stdout.
 */
import { formatRows, PAYMENT_HISTORY_COLUMNS, parseDateBound, parseFormat, paymentHistory } from '../audit/index.js';
import { parseFlags, writeChunks } from './args.js';
import { openAuditStore } from './auditStore.js';
import type { CliCommand } from './command.js';

export const auditPayments: CliCommand = {
  summary: 'payment history from the events [--from DATE] [--to DATE] [--format csv|json|ndjson]',
  async run({ env, args }) {
    const { flags } = parseFlags(args);
    const format = parseFormat(flags.format, 'csv');
    const from = parseDateBound(flags.from, false);
    const to = parseDateBound(flags.to, true);
    if (!format || from === 'invalid' || to === 'invalid') {
      console.error('Usage: audit payments [--from DATE] [--to DATE] [--format csv|json|ndjson]');
      return 2;
    }
    const opened = await openAuditStore(env, flags, { readable: true });
    try {
      const rows = paymentHistory(opened.store.streamAll({ batchSize: 1000 }), { from, to });
      await writeChunks(formatRows(rows, format, PAYMENT_HISTORY_COLUMNS));
      return 0;
    } finally {
      await opened.close();
    }
  },
};
