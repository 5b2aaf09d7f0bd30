/** GET /users/approval-status, GET/PUT /users/profile (only first and last name are editable). */
import { approvalStatusSchema, profileAnswerSchema, singleLineText } from '@members/ui/api/schemas';
import { z } from 'zod';
import { callerOf, userOf } from '../http/auth.js';
import { ok, valueOr } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { Routes } from '../kernel/module.js';
import { getProfile, updateProfile } from './accounts.service.js';
import { LIMITS } from './registration.js';

/** A name under the text policy (no control or direction characters, NFC, zero-width spaces stripped). */
const name = singleLineText({ min: 1, max: LIMITS.name, required: 'must be a string', empty: 'must not be empty' });

/** Strict: e-mail, role and status are never editable by the user, so sending them is a 400. */
const profileSchema = z.strictObject(
  { firstName: name.optional(), lastName: name.optional() },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `Only firstName and lastName can be changed (not ${issue.keys.join(', ')})` : undefined,
  },
);

export const userRoutes: Routes = (api, ctx) => {
  const approvalStatusDoc = describe({
    summary: 'My approval status',
    description: "Also answers a rejected member's restricted session.",
    tags: ['identity'],
    access: 'accountHolder',
    ok: { 200: approvalStatusSchema },
  });
  const readProfileDoc = describe({
    summary: 'My profile',
    description: "Also answers a rejected member's restricted session.",
    tags: ['identity'],
    access: 'accountHolder',
    ok: { 200: profileAnswerSchema },
  });
  const editProfileDoc = describe({
    summary: 'Change my first or last name',
    description: 'Only `firstName` and `lastName` are editable; any other field is a 400.',
    tags: ['identity'],
    access: 'member',
    body: profileSchema,
    ok: { 200: profileAnswerSchema },
  });

  // Reading one's own status and profile is part of a rejected member's restricted session.
  api.get('/users/approval-status', approvalStatusDoc, async function approvalStatus(c) {
    const user = userOf(c);
    return ok(c, { approved: Number(user.approved) === 1, status: user.status });
  });

  api.get('/users/profile', readProfileDoc, async function readProfile(c) {
    return ok(c, { user: valueOr(await getProfile(ctx, userOf(c).id)) });
  });

  api.put('/users/profile', editProfileDoc, async function editProfile(c) {
    const updated = await updateProfile(ctx, userOf(c).id, c.req.valid('json'), callerOf(c));
    return ok(c, { user: valueOr(updated) });
  });
};
