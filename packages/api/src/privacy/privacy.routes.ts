/**
 * The member's data rights (README "Privacy"):
 * - GET /users/me/export — everything stored about the member as a JSON attachment
 *   (`my-data-<date>.json`), or `?format=html` for a readable page with the same content;
 * - DELETE /users/me `{ password, code?, confirmation: "DELETE" }` — erasure by crypto-shredding;
 * - POST /admin/users/{id}/erase `{ reason }` — an admin's erasure (e.g. on a verified request).
 */
import { erasedAnswerSchema, memberExportSchema, multiLineText } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import { resolver } from 'hono-openapi';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { callerOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import { authLimitsOf, clearSessionCookies, LIMITS, limitPerIp } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { eraseMember, eraseOwnAccount } from './erasure.service.js';
import { exportMemberData, type PersonalDataParts, renderExportHtml } from './export.service.js';

const exportQuery = z.object({ format: z.enum(['json', 'html'], { error: 'must be json or html' }).optional() });

const eraseOwnSchema = z.object({
  password: z.string({ error: 'is required' }).min(1, 'is required').max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
  code: z.string({ error: 'must be a string' }).max(64, 'must be at most 64 characters').nullish(),
  confirmation: z.string({ error: 'is required' }).max(64, 'must be at most 64 characters'),
});

const adminEraseSchema = z.object({
  // The text policy (@members/ui text.ts): the audit record shows it.
  reason: multiLineText({ min: 1, max: 500, required: 'is required', empty: 'is required' }),
});

/** The `Routes` shape plus `parts`: the modules whose personal data the export gathers and the erasure removes. */
export const privacyRoutes = (api: Hono<AppEnv>, ctx: AppContext, parts: PersonalDataParts) => {
  const limits = authLimitsOf(ctx);
  const exportMyDataDoc = describe({
    summary: 'Everything stored about me (data export)',
    description:
      "A JSON attachment (`my-data-<date>.json`, not the envelope), or `?format=html` for a readable page with the same content. A rejected member's restricted session reaches it too.",
    tags: ['identity'],
    access: 'accountHolder',
    query: exportQuery,
    responses: {
      200: {
        description: 'The export',
        content: {
          'application/json': { schema: resolver(memberExportSchema, { options: { io: 'output' } }) },
          'text/html': { schema: { type: 'string' } },
        },
      },
    },
    errors: [404],
  });
  const deleteMyAccountDoc = describe({
    summary: 'Delete my account (erasure by crypto-shredding)',
    description:
      'Password, the second-factor code when one is enabled, and `confirmation: "DELETE"`. Clears the session cookies. A rejected member\'s restricted session reaches it too; open payments are canceled and the subscription ends (billing events).',
    tags: ['identity'],
    access: 'accountHolder',
    body: eraseOwnSchema,
    ok: { 200: erasedAnswerSchema },
    errors: [404, 409],
    rateLimited: true,
  });
  const eraseMemberByAdminDoc = describe({
    summary: "Erase a member's account and personal data (e.g. on a verified request)",
    tags: ['identity', 'admin'],
    access: 'admin',
    permission: 'erasure',
    params: idParams,
    body: adminEraseSchema,
    ok: { 200: erasedAnswerSchema },
    errors: [404, 409],
  });

  // A rejected member reaches these two (their restricted session): data rights do not need approval.
  api.get('/users/me/export', exportMyDataDoc, async function exportMyData(c) {
    const { format } = c.req.valid('query');
    const data = valueOr(await exportMemberData(ctx, parts, userOf(c).id));
    c.header('Cache-Control', 'no-store');
    if (format === 'html') return c.html(renderExportHtml(data));
    c.header('Content-Disposition', `attachment; filename="my-data-${data.exportedAt.slice(0, 10)}.json"`);
    return c.body(`${JSON.stringify(data, null, 2)}\n`, 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });

  api.delete('/users/me', limitPerIp(ctx, limits), deleteMyAccountDoc, async function deleteMyAccount(c) {
    const erased = valueOr(await eraseOwnAccount(ctx, parts, limits, userOf(c).id, c.req.valid('json'), callerOf(c)));
    clearSessionCookies(c);
    return ok(c, erased);
  });

  api.post('/admin/users/:id/erase', eraseMemberByAdminDoc, async function eraseMemberByAdmin(c) {
    const { reason } = c.req.valid('json');
    return ok(c, valueOr(await eraseMember(ctx, parts, c.req.valid('param').id, { requestedBy: 'admin', reason }, callerOf(c))));
  });
};
