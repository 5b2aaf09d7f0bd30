/**
 * The audit reports over HTTP for admins (`GET /api/admin/audit/...`). Row reports stream as CSV,
 * NDJSON or a JSON envelope written piece by piece, straight from a walk over the log, so a history
 * of a million events never sits in memory; verify and reconcile answer one small JSON summary.
 */
import { dataEnvelope } from '@members/ui/api/schemas';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { resolver } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf } from '../http/auth.js';
import { HttpError, ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { recordStaffRead } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import { signCheckpoint } from './checkpoint.js';
import { batchChunks, CONTENT_TYPES, formatRows, parseDateBound, type ReportFormat } from './formats.js';
import { parseReplayPoint } from './ledger.js';
import { PAYMENT_HISTORY_COLUMNS, paymentHistory } from './paymentHistory.js';
import { reconcile } from './reconcile.js';
import {
  paymentHistoryRowSchema,
  reconcileReportSchema,
  reportFormatQuery,
  signedCheckpointSchema,
  subscriptionAtRowSchema,
  verifyResultSchema,
} from './schemas.js';
import { SUBSCRIPTION_AT_COLUMNS, subscriptionsAt } from './subscriptionReplay.js';
import { verifyChain } from './verifyChain.js';

function streamReport(
  ctx: AppContext,
  c: Context<AppEnv, any, any>,
  format: ReportFormat,
  filename: string,
  chunks: AsyncIterable<string>,
) {
  c.header('Content-Type', CONTENT_TYPES[format]);
  c.header('Cache-Control', 'no-store');
  if (format === 'csv') c.header('Content-Disposition', `attachment; filename="${filename}.csv"`);
  return stream(
    c,
    async function writeReport(s) {
      for await (const chunk of batchChunks(chunks)) {
        if (s.aborted) return;
        await s.write(chunk);
      }
    },
    async function reportFailed(err) {
      // The status line is already sent: the truncated body is all the client can be told.
      ctx.logger.error({ err, requestId: c.get('requestId'), path: c.req.path }, 'audit report stream failed');
    },
  );
}

/** The answer of a report route: its rows as a streamed JSON envelope, NDJSON or CSV. */
function streamedRows(row: z.ZodType) {
  return {
    200: {
      description: 'The rows, streamed: the JSON envelope written row by row, NDJSON, or CSV (an attachment)',
      content: {
        'application/json': { schema: resolver(dataEnvelope(z.array(row)), { options: { io: 'output' } }) },
        'application/x-ndjson': { schema: { type: 'string', description: 'One JSON row per line' } },
        'text/csv': { schema: { type: 'string' } },
      },
    },
  };
}

export const auditRoutes: Routes = (api, ctx) => {
  const verifyAuditChainDoc = describe({
    summary: 'Verify the hash chain of the whole log',
    tags: ['audit', 'admin'],
    access: 'admin',
    permission: 'audit',
    ok: { 200: verifyResultSchema },
  });
  const signAuditCheckpointDoc = describe({
    summary: 'A signed checkpoint of the head (Ed25519)',
    description: '409 when `AUDIT_SIGNING_KEY` is not set or the log does not verify.',
    tags: ['audit', 'admin'],
    access: 'admin',
    permission: 'audit',
    ok: { 200: signedCheckpointSchema },
    errors: [409],
  });
  const auditPaymentHistoryDoc = describe({
    summary: 'Every payment action replayed from the events',
    tags: ['audit', 'admin'],
    access: 'admin',
    permission: 'audit',
    query: reportFormatQuery.extend({
      from: z.string().optional().describe('YYYY-MM-DD (from the start of that day, UTC) or an ISO 8601 timestamp with a zone'),
      to: z.string().optional().describe('YYYY-MM-DD (through the end of that day, UTC) or an ISO 8601 timestamp with a zone'),
    }),
    responses: streamedRows(paymentHistoryRowSchema),
  });
  const reconcileReadModelsDoc = describe({
    summary: 'Replay the log and compare with the live read models',
    tags: ['audit', 'admin'],
    access: 'admin',
    permission: 'audit',
    ok: { 200: reconcileReportSchema },
  });
  const replaySubscriptionsDoc = describe({
    summary: 'Every subscription as it was at a log position or date',
    description: 'Header `X-Replayed-To-Position` names the position replayed to.',
    tags: ['audit', 'admin'],
    access: 'admin',
    permission: 'audit',
    query: reportFormatQuery.extend({
      to: z
        .string({ error: 'must be a log position or a date (YYYY-MM-DD or an ISO 8601 timestamp with a zone)' })
        .describe('A log position, or YYYY-MM-DD (through the end of that day, UTC) or an ISO 8601 timestamp with a zone'),
    }),
    responses: streamedRows(subscriptionAtRowSchema),
  });

  api.get('/admin/audit/verify', verifyAuditChainDoc, async function verifyAuditChain(c) {
    const result = await verifyChain(ctx.rawStore);
    return ok(c, result);
  });

  api.get('/admin/audit/checkpoint', signAuditCheckpointDoc, async function signAuditCheckpoint(c) {
    if (!ctx.env.AUDIT_SIGNING_KEY)
      throw new HttpError('audit.signing_not_configured', 'Checkpoint signing is not configured (AUDIT_SIGNING_KEY)');
    const result = await verifyChain(ctx.rawStore);
    if (!result.ok)
      throw new HttpError('audit.chain_broken', `The log does not verify (position ${result.break.position}); refusing to sign`);
    const time = ctx.clock.now().toISOString();
    return ok(
      c,
      signCheckpoint({ position: result.headPosition, hash: result.headHash, time }, ctx.env.AUDIT_SIGNING_KEY.replace(/\\n/g, '\n')),
    );
  });

  api.get('/admin/audit/payments', auditPaymentHistoryDoc, async function auditPaymentHistory(c) {
    const query = c.req.valid('query');
    const from = parseDateBound(query.from, false);
    const to = parseDateBound(query.to, true);
    if (from === 'invalid' || to === 'invalid')
      throw new HttpError('validation.invalid_input', 'from/to: must be dates (YYYY-MM-DD or ISO 8601)');
    // An export of personal data is a staff read (identity/staffReads.ts): recorded before the rows go out.
    await recordStaffRead(ctx, callerOf(c), { action: 'report.export', report: 'audit/payments' });
    const rows = paymentHistory(ctx.store.streamAll({ batchSize: 1000 }), { from, to });
    return streamReport(ctx, c, query.format, 'payments', formatRows(rows, query.format, PAYMENT_HISTORY_COLUMNS));
  });

  api.get('/admin/audit/reconcile', reconcileReadModelsDoc, async function reconcileReadModels(c) {
    return ok(c, await reconcile(ctx.db, ctx.store));
  });

  api.get('/admin/audit/replay', replaySubscriptionsDoc, async function replaySubscriptions(c) {
    const { format, to } = c.req.valid('query');
    const point = parseReplayPoint(to);
    if (!point)
      throw new HttpError(
        'validation.invalid_input',
        'to: must be a log position or a date (YYYY-MM-DD or an ISO 8601 timestamp with a zone)',
      );
    const { ledger, rows } = await subscriptionsAt(ctx.store, point);
    // Recorded once the point is replayed, so a replay "to now" ends where the reader found the log.
    await recordStaffRead(ctx, callerOf(c), { action: 'report.export', report: 'audit/replay' });
    c.header('X-Replayed-To-Position', String(ledger.position));
    return streamReport(ctx, c, format, 'subscriptions', formatRows(rows, format, SUBSCRIPTION_AT_COLUMNS));
  });
};
