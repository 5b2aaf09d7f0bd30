/**
 * The admin's approval queue: GET /admin/users/pending (oldest first, keyset pages: `?limit=&after=`), POST /admin/users/{id}/approve
 * and /reject (optional `{ reason }`). Approving twice or approving a rejected user is a 409 from
 * the decider, never a second event.
 */
import { pendingUsersAnswerSchema, userDecisionAnswerSchema } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { describe } from '../http/openapi.js';
import { idParams, idSchema, jsonBody, paramOf, queryOf } from '../http/validate.js';
import { approveUser, rejectUser } from '../identity/accounts.service.js';
import { geoLocationOf, identityCounts, pendingUsers } from '../identity/users.queries.js';
import { pageOf, pageQuerySchema } from '../shared/paging.js';

const rejectSchema = z.object({
  reason: z.string({ error: 'must be a string' }).trim().max(500, 'must be at most 500 characters').nullish(),
});

export function adminUserRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const listPendingUsersDoc = describe({
    summary: 'Registrations waiting for approval, oldest first',
    tags: ['identity', 'admin'],
    access: 'admin',
    query: pageQuerySchema,
    ok: { 200: pendingUsersAnswerSchema },
  });
  const approveDoc = describe({
    summary: 'Approve a registration (mailed to the member)',
    description: 'Approving twice or approving a rejected account is a 409.',
    tags: ['identity', 'admin'],
    access: 'admin',
    params: idParams,
    ok: { 200: userDecisionAnswerSchema },
    errors: [404, 409],
  });
  const rejectDoc = describe({
    summary: 'Reject a registration, with an optional reason',
    tags: ['identity', 'admin'],
    access: 'admin',
    params: idParams,
    body: rejectSchema,
    ok: { 200: userDecisionAnswerSchema },
    errors: [404, 409],
  });

  api.get('/admin/users/pending', listPendingUsersDoc, async function listPendingUsers(c) {
    await requireAdmin(ctx, c);
    const page = queryOf(c, pageQuerySchema);
    const { rows, nextCursor } = pageOf(await pendingUsers(ctx.db, page), page.limit, (u) => [u.created_at, u.id]);
    const users = rows.map((u) => ({
      id: u.id,
      email: u.email,
      firstName: u.first_name,
      lastName: u.last_name,
      createdAt: u.created_at,
      registrationDate: u.created_at,
      geoLocation: geoLocationOf(u),
    }));
    // `total` comes from the precomputed counters, not a count of the table.
    const { pendingApprovals } = await identityCounts(ctx.db);
    return ok(c, { users, nextCursor, total: pendingApprovals });
  });

  api.post('/admin/users/:id/approve', approveDoc, async function approve(c) {
    const admin = await requireAdmin(ctx, c);
    const id = paramOf(c, 'id', idSchema);
    valueOr(await approveUser(ctx, id, { actorId: admin.id, requestId: c.get('requestId'), origin: linkOrigin(ctx, c.req.url) }));
    return ok(c, { id, status: 'approved', message: 'User approved successfully!' });
  });

  api.post('/admin/users/:id/reject', rejectDoc, async function reject(c) {
    const admin = await requireAdmin(ctx, c);
    const id = paramOf(c, 'id', idSchema);
    const { reason } = await jsonBody(c, rejectSchema);
    valueOr(await rejectUser(ctx, id, reason, { actorId: admin.id, requestId: c.get('requestId'), origin: linkOrigin(ctx, c.req.url) }));
    return ok(c, { id, status: 'rejected', message: 'User rejected successfully' });
  });
}
