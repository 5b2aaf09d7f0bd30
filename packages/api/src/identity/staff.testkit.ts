/**
 * Staff accounts for tests (issue 42), made as the product makes them: the owner invites through
 * POST /admin/staff/invitations, the link's token is read from the mail the identity subscriber
 * queued, the invitee accepts through POST /auth/staff-invitations/accept, signs in, enrols the
 * second factor REQUIRE_ADMIN_2FA asks for, and signs in again with it.
 */
import type { StaffRole } from '@members/ui/staffRoles';
import type { apiClient, TestServer } from '../../test/harness.js';
import { totpCode } from './totp.js';

type Api = ReturnType<typeof apiClient>;

export interface StaffAccount {
  id: string;
  email: string;
  password: string;
  displayName: string;
  role: StaffRole;
  token: string;
  secret: string;
}

let invited = 0;

/** The token of the newest invitation link queued for `email` (the outbox row the subscriber wrote). */
export async function invitationTokenFor(server: TestServer, email: string): Promise<string> {
  await server.subscribers.drain();
  const rows = await server.ctx.db.all<{ text_body: string; key: string }>(
    `SELECT text_body, key FROM mail_outbox WHERE to_address = ? AND key LIKE 'staff-invitation:%' ORDER BY created_at DESC`,
    [email],
  );
  const match = /\/auth\/staff-invitation\?token=(\S+)/.exec(rows[0]?.text_body ?? '');
  if (!match) throw new Error(`no staff invitation mailed to ${email}`);
  return decodeURIComponent(match[1] as string);
}

/** Invites a fresh address with `role` and accepts the invitation: the account's id, e-mail and password (not signed in). */
export async function acceptedStaff(server: TestServer, api: Api, ownerToken: string, role: StaffRole) {
  const email = `staff-${role}-${++invited}-${server.ctx.ids.next().slice(0, 8)}@example.test`;
  const sent = await api.post('/admin/staff/invitations', { email, role }, ownerToken);
  if (sent.status !== 201) throw new Error(`invite failed: ${sent.status} ${sent.body.error}`);
  const password = `staff-password-${invited}-long`;
  const displayName = `${role[0]?.toUpperCase()}${role.slice(1)} Person ${invited}`;
  const token = await invitationTokenFor(server, email);
  const accepted = await api.post('/auth/staff-invitations/accept', { token, password, displayName });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${accepted.body.error}`);
  return { id: sent.body.data.invitation.id as string, email, password, displayName, role };
}

/** A staff member with `role`, enrolled in TOTP and signed in with it. */
export async function signedInStaff(server: TestServer, api: Api, ownerToken: string, role: StaffRole): Promise<StaffAccount> {
  const account = await acceptedStaff(server, api, ownerToken, role);
  const first = await api.post('/auth/login', { email: account.email, password: account.password });
  if (first.status !== 200) throw new Error(`staff login failed: ${first.status} ${first.body.error}`);
  const started = await api.post('/auth/mfa/enroll', undefined, first.body.data.token);
  const secret = started.body.data.secret as string;
  const confirmed = await api.post('/auth/mfa/enroll/confirm', { code: totpCode(secret, server.clock.now()) }, first.body.data.token);
  if (confirmed.status !== 200) throw new Error(`staff enrolment failed: ${confirmed.status} ${confirmed.body.error}`);
  server.clock.advance(30_000);
  const challenge = await api.post('/auth/login', { email: account.email, password: account.password });
  const verified = await api.post('/auth/mfa/verify', {
    mfaToken: challenge.body.data.mfaToken,
    code: totpCode(secret, server.clock.now()),
  });
  if (verified.status !== 200) throw new Error(`staff second factor failed: ${verified.status} ${verified.body.error}`);
  server.clock.advance(30_000);
  return { ...account, token: verified.body.data.token as string, secret };
}
