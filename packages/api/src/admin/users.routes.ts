/**
 * The admin's approval queue: GET /admin/users/pending (oldest first, keyset pages: `?limit=&after=`), POST /admin/users/{id}/approve
 * and /reject (optional `{ reason }`), GET /admin/users?q= (find members by e-mail or name, newest first, 50 at most),
 * GET /admin/users/{id}/history (the member page: the member and
 * their history from their events, memberHistory.service.ts), POST /admin/users/{id}/suspend `{ reason }` and /reinstate
 * (identity/suspension.service.ts). Opening a member's page and a search are recorded as staff reads
 * (identity/staffReads.ts); a role without `payments` reads the history without its payment entries. Approving twice or approving a rejected user is a 409 from
 * the decider, never a second event; so are suspending anyone but an approved member and reinstating
 * anyone not suspended.
 */
import {
  memberHistoryAnswerSchema,
  memberSearchAnswerSchema,
  multiLineText,
  pendingUsersAnswerSchema,
  userDecisionAnswerSchema,
} from '@members/ui/api/schemas';
import { can } from '@members/ui/staffRoles';
import { z } from 'zod';
import { callerOf, staffRoleOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { linkOrigin } from '../http/linkOrigin.js';
import { describe } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import {
  approveUser,
  geoLocationOf,
  identityCounts,
  pendingUsers,
  recordStaffRead,
  reinstateUser,
  rejectUser,
  searchUsers,
  suspendUser,
} from '../identity/index.js';
import type { Routes } from '../kernel/module.js';
import { pageOf, pageQuerySchema } from '../shared/paging.js';
import { getMemberHistory } from './memberHistory.service.js';

// Reasons go through the text policy (@members/ui text.ts): the member's mail and the member history show them.
const rejectSchema = z.object({
  reason: multiLineText({ min: 0, max: 500, required: 'must be a string' }).nullish(),
});

const suspendSchema = z.object({
  reason: multiLineText({ min: 1, max: 500, required: 'is required', empty: 'is required' }),
});

const searchSchema = z.object({
  q: z.string({ error: 'must be a string' }).max(254, 'must be at most 254 characters').default(''),
});
const MEMBER_SEARCH_LIMIT = 50;

export const adminUserRoutes: Routes = (api, ctx) => {
  const listPendingUsersDoc = describe({
    summary: 'Registrations waiting for approval, oldest first',
    tags: ['identity', 'admin'],
    access: 'admin',
    permission: 'members.review',
    query: pageQuerySchema,
    ok: { 200: pendingUsersAnswerSchema },
  });
  const approveDoc = describe({
    summary: 'Approve a registration (mailed to the member)',
    description: 'Approving twice or approving a rejected account is a 409.',
    tags: ['identity', 'admin'],
    access: 'admin',
    permission: 'members.review',
    params: idParams,
    ok: { 200: userDecisionAnswerSchema },
    errors: [404, 409],
  });
  const rejectDoc = describe({
    summary: 'Reject a registration, with an optional reason',
    tags: ['identity', 'admin'],
    access: 'admin',
    permission: 'members.review',
    params: idParams,
    body: rejectSchema,
    ok: { 200: userDecisionAnswerSchema },
    errors: [404, 409],
  });
  const suspendDoc = describe({
    summary: 'Suspend an approved member, with a reason',
    description:
      "Ends the member's sessions at once; they cannot sign in, and the access decision refuses them videos and subscribing, until reinstated. Only an approved member (not an admin) can be suspended: anything else is a 409.",
    tags: ['identity', 'admin'],
    access: 'admin',
    permission: 'members.review',
    params: idParams,
    body: suspendSchema,
    ok: { 200: userDecisionAnswerSchema },
    errors: [404, 409],
  });
  const reinstateDoc = describe({
    summary: 'Reinstate a suspended member',
    description: 'The member is approved again and can sign in. Reinstating an account that is not suspended is a 409.',
    tags: ['identity', 'admin'],
    access: 'admin',
    permission: 'members.review',
    params: idParams,
    ok: { 200: userDecisionAnswerSchema },
    errors: [404, 409],
  });

  api.get('/admin/users/pending', listPendingUsersDoc, async function listPendingUsers(c) {
    const page = c.req.valid('query');
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

  api.get(
    '/admin/users',
    describe({
      summary: 'Find members by e-mail or name (newest first, 50 at most)',
      tags: ['identity', 'admin'],
      access: 'admin',
      permission: 'members.search',
      query: searchSchema,
      ok: { 200: memberSearchAnswerSchema },
    }),
    async function findMembers(c) {
      const { q } = c.req.valid('query');
      await recordStaffRead(ctx, callerOf(c), { action: 'members.search' });
      const users = (await searchUsers(ctx.db, q, MEMBER_SEARCH_LIMIT)).map((u) => ({
        id: u.id,
        email: u.email,
        firstName: u.first_name,
        lastName: u.last_name,
        role: u.role,
        status: u.status,
        membershipStatus: u.membership_status,
        createdAt: u.created_at,
      }));
      return ok(c, { users, limit: MEMBER_SEARCH_LIMIT });
    },
  );

  api.get(
    '/admin/users/:id/history',
    describe({
      summary: "A member's page: who they are now and their history from their events",
      description:
        'Registration, approval or rejection, password and e-mail changes, second factor, payments with their transaction hashes, subscription changes and erasure, in log order, with who acted. Never a password or token hash.',
      tags: ['identity', 'admin'],
      access: 'admin',
      permission: 'members.history',
      params: idParams,
      ok: { 200: memberHistoryAnswerSchema },
      errors: [404],
    }),
    async function memberHistory(c) {
      const { id } = c.req.valid('param');
      const role = staffRoleOf(userOf(c));
      const answer = valueOr(await getMemberHistory(ctx, id, { payments: role !== null && can(role, 'payments') }));
      await recordStaffRead(ctx, callerOf(c), { action: 'member.page', subjectId: id });
      return ok(c, answer);
    },
  );

  api.post('/admin/users/:id/approve', approveDoc, async function approve(c) {
    const { id } = c.req.valid('param');
    valueOr(await approveUser(ctx, id, { ...callerOf(c), origin: linkOrigin(ctx) }));
    return ok(c, { id, status: 'approved', message: 'User approved successfully!' });
  });

  api.post('/admin/users/:id/reject', rejectDoc, async function reject(c) {
    const { id } = c.req.valid('param');
    const { reason } = c.req.valid('json');
    valueOr(await rejectUser(ctx, id, reason, { ...callerOf(c), origin: linkOrigin(ctx) }));
    return ok(c, { id, status: 'rejected', message: 'User rejected successfully' });
  });

  api.post('/admin/users/:id/suspend', suspendDoc, async function suspend(c) {
    const { id } = c.req.valid('param');
    valueOr(await suspendUser(ctx, id, c.req.valid('json').reason, callerOf(c)));
    return ok(c, { id, status: 'suspended', message: 'User suspended; their sessions have ended' });
  });

  api.post('/admin/users/:id/reinstate', reinstateDoc, async function reinstate(c) {
    const { id } = c.req.valid('param');
    valueOr(await reinstateUser(ctx, id, callerOf(c)));
    return ok(c, { id, status: 'approved', message: 'User reinstated' });
  });
};
