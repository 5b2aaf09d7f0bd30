/**
 * The admin's approval queue: GET /admin/users/pending (oldest first), POST /admin/users/{id}/approve
 * and /reject (optional `{ reason }`). Approving twice or approving a rejected user is a 409 from
 * the decider, never a second event.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { AppEnv } from '../http/appEnv.js';
import { requireAdmin } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { idSchema, jsonBody, paramOf } from '../http/validate.js';
import { approveUser, rejectUser } from '../identity/accounts.service.js';
import { geoLocationOf, pendingUsers } from '../identity/users.queries.js';

const rejectSchema = z.object({
  reason: z.string({ error: 'must be a string' }).trim().max(500, 'must be at most 500 characters').nullish(),
});

export function adminUserRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  api.get('/admin/users/pending', async function listPendingUsers(c) {
    await requireAdmin(ctx, c);
    const users = (await pendingUsers(ctx.db)).map((u) => ({
      id: u.id,
      email: u.email,
      firstName: u.first_name,
      lastName: u.last_name,
      createdAt: u.created_at,
      registrationDate: u.created_at,
      geoLocation: geoLocationOf(u),
    }));
    return ok(c, { users });
  });

  api.post('/admin/users/:id/approve', async function approve(c) {
    const admin = await requireAdmin(ctx, c);
    const id = paramOf(c, 'id', idSchema);
    valueOr(await approveUser(ctx, id, { actorId: admin.id, requestId: c.get('requestId'), origin: linkOrigin(ctx, c.req.url) }));
    return ok(c, { id, status: 'approved', message: 'User approved successfully!' });
  });

  api.post('/admin/users/:id/reject', async function reject(c) {
    const admin = await requireAdmin(ctx, c);
    const id = paramOf(c, 'id', idSchema);
    const { reason } = await jsonBody(c, rejectSchema);
    valueOr(await rejectUser(ctx, id, reason, { actorId: admin.id, requestId: c.get('requestId'), origin: linkOrigin(ctx, c.req.url) }));
    return ok(c, { id, status: 'rejected', message: 'User rejected successfully' });
  });
}
