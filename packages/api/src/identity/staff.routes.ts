/**
 * The creator's team (issue 42): the owner's staff routes (`staff` permission) and the invitee's
 * POST /auth/staff-invitations/accept, beside the other mailed-link routes. The use cases are in
 * staff.service.ts, the record of the staff's reads in staffReads.ts.
 */
import {
  messageAnswerSchema,
  staffDisplayName,
  staffInvitedAnswerSchema,
  staffListAnswerSchema,
  staffMemberAnswerSchema,
  staffReadsAnswerSchema,
  staffRemovedAnswerSchema,
  staffRoleSchema,
} from '@members/ui/api/schemas';
import { MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES } from '@members/ui/registration';
import { z } from 'zod';
import { callerOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { idParams } from '../http/validate.js';
import type { Routes } from '../kernel/module.js';
import { pageQuerySchema } from '../shared/paging.js';
import { authLimitsOf, limitPerIp } from './limits.js';
import { LIMITS, loginEmail } from './registration.js';
import { acceptStaffInvitation, changeStaffRole, inviteStaff, listStaff, removeStaff } from './staff.service.js';
import { staffReads } from './staffReads.js';

const inviteSchema = z.object({ email: loginEmail, role: staffRoleSchema });
const acceptSchema = z.object({
  token: z.string({ error: 'is required' }).min(1, 'is required').max(512, 'must be at most 512 characters'),
  password: z
    .string({ error: 'is required' })
    .min(MIN_PASSWORD_LENGTH, REGISTRATION_MESSAGES.passwordTooShort)
    .max(LIMITS.password, `must be at most ${LIMITS.password} characters`),
  displayName: staffDisplayName,
});
const roleSchema = z.object({ role: staffRoleSchema });

export const staffRoutes: Routes = (api, ctx) => {
  const perIp = limitPerIp(ctx, authLimitsOf(ctx));

  api.post(
    '/admin/staff/invitations',
    describe({
      summary: 'Invite a staff member by e-mail with a role (a single-use link valid 72 hours)',
      description: 'A newer invitation to the same address replaces the open one. The mail counts against the mail limits.',
      tags: ['identity', 'admin'],
      access: 'admin',
      permission: 'staff',
      body: inviteSchema,
      ok: { 201: staffInvitedAnswerSchema },
      errors: [409],
    }),
    async function inviteStaffMember(c) {
      const { email, role } = c.req.valid('json');
      return ok(c, valueOr(await inviteStaff(ctx, { email, role }, callerOf(c))), 201);
    },
  );

  api.post(
    '/auth/staff-invitations/accept',
    perIp,
    describe({
      summary: 'Accept a staff invitation: choose a password and the name the team sees',
      description:
        'The account is an admin with the invited staff role; where REQUIRE_ADMIN_2FA holds, it enrols a second factor before any staff action.',
      tags: ['identity'],
      access: 'public',
      body: acceptSchema,
      ok: { 200: messageAnswerSchema },
      errors: [409],
      rateLimited: true,
    }),
    async function acceptInvitation(c) {
      return ok(c, valueOr(await acceptStaffInvitation(ctx, c.req.valid('json'), { requestId: c.get('requestId') })));
    },
  );

  api.get(
    '/admin/staff',
    describe({
      summary: 'The staff (owners included) and the invitations still open',
      tags: ['identity', 'admin'],
      access: 'admin',
      permission: 'staff',
      ok: { 200: staffListAnswerSchema },
    }),
    async function listStaffMembers(c) {
      return ok(c, await listStaff(ctx));
    },
  );

  api.get(
    '/admin/staff/reads',
    describe({
      summary: "The staff's reads of personal data, newest first: member pages opened, searches, report exports",
      description: 'Who read what and when, never the data read nor the words searched for.',
      tags: ['identity', 'admin', 'audit'],
      access: 'admin',
      permission: 'staff',
      query: pageQuerySchema,
      ok: { 200: staffReadsAnswerSchema },
    }),
    async function listStaffReads(c) {
      return ok(c, await staffReads(ctx.db, c.req.valid('query')));
    },
  );

  api.put(
    '/admin/staff/:id',
    describe({
      summary: "Change a staff member's role",
      tags: ['identity', 'admin'],
      access: 'admin',
      permission: 'staff',
      params: idParams,
      body: roleSchema,
      ok: { 200: staffMemberAnswerSchema },
      errors: [404, 409],
    }),
    async function changeRole(c) {
      const { id } = c.req.valid('param');
      return ok(c, valueOr(await changeStaffRole(ctx, id, c.req.valid('json').role, callerOf(c))));
    },
  );

  api.delete(
    '/admin/staff/:id',
    describe({
      summary: 'Remove a staff member: their account stops and every session of theirs ends at once',
      tags: ['identity', 'admin'],
      access: 'admin',
      permission: 'staff',
      params: idParams,
      ok: { 200: staffRemovedAnswerSchema },
      errors: [404, 409],
    }),
    async function removeStaffMember(c) {
      const { id } = c.req.valid('param');
      return ok(c, valueOr(await removeStaff(ctx, id, callerOf(c))));
    },
  );
};
