/**
 * The creator's team (issue 42) on the production configuration (NODE_ENV=production, an https
 * PUBLIC_URL, mail over SMTP to a real SMTP server, REQUIRE_ADMIN_2FA by default): the owner invites
 * a staff member, the invitation arrives by mail and is accepted once; the new account must enrol a
 * second factor before any staff action; each role reaches its permissions and is refused the rest
 * with 403 `auth.permission_required` naming the permission; the owner changes a role (it applies
 * at once) and removes a staff member, whose open access tokens and refresh cookies stop at once and
 * who can no longer sign in. The staff's reads of personal data are recorded and shown to the owner.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiAnswer, apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../test/harness.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { startSmtpServer, strictParse } from '../mail/smtpServer.testkit.js';
import { makeMp4 } from '../media/media.testkit.js';
import { cookieHeader, cookiesOf, enrolSecondFactor, login, registerMember, registrationPayload } from './identity.testkit.js';
import { invitationTokenFor, signedInStaff } from './staff.testkit.js';
import { totpCode } from './totp.js';

const PUBLIC_URL = 'https://members.example.test';
type Api = ReturnType<typeof apiClient>;
const codeOf = (answer: ApiAnswer) => (answer.body as { code?: string }).code;

forEachStore('staff accounts and roles (production)', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let api: Api;
  let owner: { token: string; id: string };

  /** The invitation mail for `email` as the SMTP server received it: its subject and link token. */
  async function mailedInvitation(email: string): Promise<{ subject: string; token: string }> {
    for (;;) {
      const mail = smtp.received.find((m) => m.to.includes(email.toLowerCase()));
      if (mail) {
        const parsed = strictParse(mail.raw);
        const link = /https:\/\/members\.example\.test\/auth\/staff-invitation\?token=(\S+)/.exec(parsed.text ?? '');
        if (!link) throw new Error(`the invitation carries no link:\n${parsed.text}`);
        return { subject: parsed.subject ?? '', token: decodeURIComponent(link[1] as string) };
      }
      // The outbox hands mails to SMTP in the background (the test's timeout bounds the wait).
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A member registered, approved by the owner, and signed in. */
  async function approvedMember() {
    const member = await registerMember(api);
    expect((await api.post(`/admin/users/${member.id}/approve`, undefined, owner.token)).status).toBe(200);
    return { ...member, ...(await login(api, member.email, member.password)) };
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', PUBLIC_URL, SMTP_URL: smtp.url, AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' },
    });
    api = apiClient(server.url);
    const first = await login(api, TEST_ADMIN.email, TEST_ADMIN.password);
    const { secret } = await enrolSecondFactor(api, server.clock, first.token);
    server.clock.advance(30_000);
    const challenge = await api.post('/auth/login', TEST_ADMIN);
    const verified = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(secret, server.clock.now()),
    });
    server.clock.advance(30_000);
    owner = { token: verified.body.data.token, id: first.user.id };
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  it('an invitation is mailed, accepted once, and the new staff member must enrol a second factor before any staff action', async () => {
    const email = 'finance.person@example.test';
    const invited = await api.post('/admin/staff/invitations', { email, role: 'finance' }, owner.token);
    expect(invited.status).toBe(201);
    expect(invited.body.data.invitation).toMatchObject({ email, role: 'finance' });
    const { subject, token } = await mailedInvitation(email);
    expect(subject).toMatch(/you are invited to the team$/);

    // A forged token, a too-short password and an empty name are refused; nothing is created.
    expect(
      (await api.post('/auth/staff-invitations/accept', { token: `${token}x`, password: 'long-enough-pass', displayName: 'F' })).body,
    ).toEqual({
      success: false,
      error: 'This invitation link is invalid or has already been used',
      code: 'auth.invalid_link',
    });
    const badName = await api.post('/auth/staff-invitations/accept', { token, password: 'long-enough-pass', displayName: '   ' });
    expect(badName.status).toBe(400);
    expect(codeOf(badName)).toBe('validation.invalid_body');
    // The text policy (issue 44): the outside tester's payloads as the name the team sees.
    for (const [displayName, words] of [
      ['hi\u0000\u0007\u001b[31mred\u001b[0m\r\nX-Injected: yes', 'displayName: must not contain control characters'],
      ['Admin\u202e\u0007', 'displayName: must not contain control characters'],
      ['abc\u202egnp.exe\u202c', 'displayName: must not contain text direction override characters'],
      ['Owner\u2067 (Owner)\u2069', 'displayName: must not contain text direction override characters'],
      ['\u200b\u200b\u200b', 'displayName: is required'],
    ]) {
      const refused = await api.post('/auth/staff-invitations/accept', { token, password: 'long-enough-pass', displayName });
      const { success, error, code } = refused.body as { success: boolean; error: string; code: string };
      expect([JSON.stringify(displayName), refused.status, { success, error, code }]).toEqual([
        JSON.stringify(displayName),
        400,
        { success: false, error: words, code: 'validation.invalid_body' },
      ]);
    }
    expect((await api.post('/auth/login', { email, password: 'long-enough-pass' })).status).toBe(401);

    const accepted = await api.post('/auth/staff-invitations/accept', {
      token,
      password: 'finance-password-1',
      displayName: 'Fran Finance',
    });
    expect(accepted.status).toBe(200);
    // Single use.
    const again = await api.post('/auth/staff-invitations/accept', { token, password: 'finance-password-2', displayName: 'Mallory' });
    expect({ status: again.status, code: codeOf(again) }).toEqual({ status: 400, code: 'auth.invalid_link' });

    // Signed in, the account is an admin with its staff role, held to enrolment first.
    const first = await api.post('/auth/login', { email, password: 'finance-password-1' });
    expect(first.status).toBe(200);
    expect(first.body.data.mfaEnrollmentRequired).toBe(true);
    expect(first.body.data.user).toMatchObject({ role: 'admin', staffRole: 'finance', firstName: 'Fran Finance' });
    const held = await api.get('/admin/pending-payments', first.body.data.token);
    expect({ status: held.status, code: codeOf(held) }).toEqual({ status: 403, code: 'auth.second_factor_enrolment_required' });
    const { secret } = await enrolSecondFactor(api, server.clock, first.body.data.token);
    server.clock.advance(30_000);
    const challenge = await api.post('/auth/login', { email, password: 'finance-password-1' });
    const session = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(secret, server.clock.now()),
    });
    server.clock.advance(30_000);
    const financeToken = session.body.data.token as string;

    // Finance's column: payments, analytics, audit; no chat, no staff management, no erasure.
    expect((await api.get('/admin/pending-payments', financeToken)).status).toBe(200);
    expect((await api.get('/admin/analytics', financeToken)).status).toBe(200);
    expect((await api.get('/admin/audit/verify', financeToken)).status).toBe(200);
    expect((await api.get('/admin/chat/conversations', financeToken)).body).toEqual({
      success: false,
      error: 'Your staff role does not allow this (it needs the "chat" permission).',
      code: 'auth.permission_required',
    });
    expect((await api.get('/admin/staff', financeToken)).status).toBe(403);
    expect((await api.post('/admin/staff/invitations', { email: 'x@example.test', role: 'owner' }, financeToken)).status).toBe(403);

    // The owner sees the new staff member, by name, with the last time they were active.
    const listed = await api.get('/admin/staff', owner.token);
    expect(listed.status).toBe(200);
    expect(listed.body.data.staff).toEqual(
      expect.arrayContaining([
        { id: invited.body.data.invitation.id, email, displayName: 'Fran Finance', role: 'finance', lastActiveAt: expect.any(String) },
        expect.objectContaining({ id: owner.id, role: 'owner' }),
      ]),
    );
    expect(listed.body.data.invitations.map((i: { email: string }) => i.email)).not.toContain(email);
  }, 60_000);

  it('a role change applies to the open session at once; the owner cannot change or remove their own account', async () => {
    const staff = await signedInStaff(server, api, owner.token, 'support');
    expect((await api.get('/admin/chat/conversations', staff.token)).status).toBe(200);
    expect(codeOf(await api.get('/admin/videos', staff.token))).toBe('auth.permission_required');
    const changed = await api.put(`/admin/staff/${staff.id}`, { role: 'editor' }, owner.token);
    expect(changed.status).toBe(200);
    expect(changed.body.data.staff).toMatchObject({ id: staff.id, role: 'editor', displayName: staff.displayName });
    expect((await api.get('/admin/videos', staff.token)).status).toBe(200);
    expect(codeOf(await api.get('/admin/chat/conversations', staff.token))).toBe('auth.permission_required');
    // The chat socket's ticket follows every conversation: not for an editor.
    expect(codeOf(await api.post('/chat/ticket', undefined, staff.token))).toBe('auth.permission_required');

    expect((await api.put(`/admin/staff/${owner.id}`, { role: 'support' }, owner.token)).status).toBe(409);
    expect((await api.del(`/admin/staff/${owner.id}`, owner.token)).status).toBe(409);
    const bad = await api.put(`/admin/staff/${staff.id}`, { role: 'janitor' }, owner.token);
    expect({ status: bad.status, code: codeOf(bad) }).toEqual({ status: 400, code: 'validation.invalid_body' });
    expect((await api.put(`/admin/staff/${server.ctx.ids.next()}`, { role: 'editor' }, owner.token)).status).toBe(404);
  }, 60_000);

  it('removing a staff member stops every open access token and refresh cookie of theirs at once, and their sign-in', async () => {
    const staff = await signedInStaff(server, api, owner.token, 'moderator');
    // A second device with a refresh cookie.
    const challenge = await api.post('/auth/login', { email: staff.email, password: staff.password });
    const device = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(staff.secret, server.clock.now()),
    });
    server.clock.advance(30_000);
    const cookies = cookiesOf(device.headers);
    const refresh = () =>
      api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token ?? '' } });
    expect((await api.get('/admin/users/pending', staff.token)).status).toBe(200);
    expect((await api.get('/admin/users/pending', device.body.data.token)).status).toBe(200);

    const removed = await api.del(`/admin/staff/${staff.id}`, owner.token);
    expect(removed.status).toBe(200);
    // The sign-in that enrolled the second factor, the one after it, and the second device.
    expect(removed.body.data).toEqual({ removed: true, sessionsEnded: 3 });

    for (const token of [staff.token, device.body.data.token]) {
      const r = await api.get('/admin/users/pending', token);
      expect(r.status).toBe(401);
      expect((await api.get('/users/profile', token)).status).toBe(401);
    }
    expect((await refresh()).status).toBe(401);
    const signIn = await api.post('/auth/login', { email: staff.email, password: staff.password });
    expect({ status: signIn.status, code: codeOf(signIn) }).toEqual({ status: 401, code: 'auth.invalid_credentials' });
    expect((await api.get('/admin/staff', owner.token)).body.data.staff.map((s: { id: string }) => s.id)).not.toContain(staff.id);
    expect((await api.del(`/admin/staff/${staff.id}`, owner.token)).status).toBe(404);
  }, 60_000);

  it("a removed staff member's address can be invited again: a new account with a fresh password, the old one's sessions and second factor stay behind", async () => {
    const before = await signedInStaff(server, api, owner.token, 'support');
    const challenge = await api.post('/auth/login', { email: before.email, password: before.password });
    const device = await api.post('/auth/mfa/verify', {
      mfaToken: challenge.body.data.mfaToken,
      code: totpCode(before.secret, server.clock.now()),
    });
    server.clock.advance(30_000);
    const cookies = cookiesOf(device.headers);
    const refresh = () =>
      api.call('POST', '/auth/refresh', { headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token ?? '' } });
    expect((await api.del(`/admin/staff/${before.id}`, owner.token)).status).toBe(200);

    // The owner invites the same address again, in another role (the newest link mailed for it).
    const invited = await api.post('/admin/staff/invitations', { email: before.email.toUpperCase(), role: 'editor' }, owner.token);
    expect(invited.status).toBe(201);
    const newId = invited.body.data.invitation.id as string;
    expect(newId).not.toBe(before.id);
    const token = await invitationTokenFor(server, before.email.toUpperCase());
    const accepted = await api.post('/auth/staff-invitations/accept', { token, password: 'rejoined-password-1', displayName: 'Sam Again' });
    expect(accepted.status).toBe(200);

    // The new account signs in with the new password only, in its new role, and enrols a second
    // factor of its own: the removed account's TOTP secret is not carried over.
    const old = await api.post('/auth/login', { email: before.email, password: before.password });
    expect({ status: old.status, code: codeOf(old) }).toEqual({ status: 401, code: 'auth.invalid_credentials' });
    const first = await api.post('/auth/login', { email: before.email, password: 'rejoined-password-1' });
    expect(first.status).toBe(200);
    expect(first.body.data.mfaEnrollmentRequired).toBe(true);
    expect(first.body.data.user).toMatchObject({ id: newId, role: 'admin', staffRole: 'editor', firstName: 'Sam Again' });

    // The removed account's access tokens and refresh cookie stay dead.
    for (const t of [before.token, device.body.data.token]) expect((await api.get('/users/profile', t)).status).toBe(401);
    expect((await refresh()).status).toBe(401);
    expect((await api.del(`/admin/staff/${before.id}`, owner.token)).status).toBe(404);

    // The team lists the new account once; the old one's history stays its own (its stream ends with StaffRemoved).
    const team = (await api.get('/admin/staff', owner.token)).body.data.staff as { id: string; email: string; role: string }[];
    expect(team.filter((m) => m.email.toLowerCase() === before.email.toLowerCase())).toEqual([
      expect.objectContaining({ id: newId, role: 'editor' }),
    ]);
    const types = async (id: string) => (await server.ctx.store.readStream(`user-${id}`)).map((e) => e.type);
    const oldStream = await types(before.id);
    expect([...oldStream.slice(0, 2), oldStream.at(-1)]).toEqual(['StaffInvited', 'StaffJoined', 'StaffRemoved']);
    const newStream = await types(newId);
    expect(newStream.slice(0, 2)).toEqual(['StaffInvited', 'StaffJoined']);
    expect(newStream).not.toContain('StaffRemoved');
  }, 60_000);

  describe('reads of personal data', () => {
    it('a member page, a member search and a report export are recorded (who, what, when), shown to the owner only', async () => {
      const member = await approvedMember();
      const moderator = await signedInStaff(server, api, owner.token, 'moderator');
      const finance = await signedInStaff(server, api, owner.token, 'finance');
      // The member paid: finance sees the payment in the history, the moderator does not.
      const paid = await api.post(
        '/payments/submit-bitcoin-payment',
        { userId: member.id, planType: 'monthly', btcAmount: '0.0005' },
        member.token,
      );
      expect(paid.status).toBe(201);
      expect((await api.post(`/admin/payments/${paid.body.data.paymentId}/verify`, undefined, finance.token)).status).toBe(200);

      const seenByModerator = await api.get(`/admin/users/${member.id}/history`, moderator.token);
      expect(seenByModerator.status).toBe(200);
      expect(seenByModerator.body.data.history.filter((h: { category: string }) => h.category === 'payment')).toEqual([]);
      const seenByFinance = await api.get(`/admin/users/${member.id}/history`, finance.token);
      const payments = seenByFinance.body.data.history.filter((h: { category: string }) => h.category === 'payment');
      expect(payments.length).toBeGreaterThan(0);
      // The staff member who verified is named in the member's history by their name and role.
      expect(payments.map((h: { actor: string }) => h.actor)).toContain(`${finance.displayName} (Finance)`);

      expect((await api.get(`/admin/users?q=${encodeURIComponent(member.email)}`, moderator.token)).status).toBe(200);
      // The audit ledger names the staff member who verified.
      const ledger = await api.get('/admin/audit/payments', finance.token);
      expect(ledger.status).toBe(200);
      const verifiedRow = (ledger.body.data as { action: string; paymentId: string }[]).find(
        (r) => r.action === 'verified' && r.paymentId === paid.body.data.paymentId,
      );
      expect(verifiedRow).toMatchObject({
        actingAdminId: finance.id,
        actingAdminEmail: finance.email,
        actingAdminName: finance.displayName,
      });

      const reads = await api.get('/admin/staff/reads?limit=10', owner.token);
      expect(reads.status).toBe(200);
      const mine = reads.body.data.reads.filter((r: { staffId: string }) => [moderator.id, finance.id].includes(r.staffId));
      expect(
        mine.map((r: { staffName: string; action: string; subjectId: string | null; report: string | null }) => [
          r.staffName,
          r.action,
          r.subjectId,
          r.report,
        ]),
      ).toEqual([
        [finance.displayName, 'report.export', null, 'audit/payments'],
        [moderator.displayName, 'members.search', null, null],
        [finance.displayName, 'member.page', member.id, null],
        [moderator.displayName, 'member.page', member.id, null],
      ]);
      // Not the words searched for, nor anything read.
      expect(JSON.stringify(reads.body)).not.toContain(member.email);
      const log = await server.ctx.store.readStream(`staffreads-${moderator.id}`);
      expect(JSON.stringify(log)).not.toContain(member.email);
      // The record is the owner's to read.
      expect(codeOf(await api.get('/admin/staff/reads', finance.token))).toBe('auth.permission_required');
    }, 90_000);
  });

  it('previewing a video not out yet takes the `videos` permission: support, moderator and finance are refused, published videos play for every role', async () => {
    const dir = tmpDir('staff-preview-');
    try {
      const clip = await makeMp4(dir, 1);
      let copies = 0;
      const ingest = async (extra: { publishAt?: string; published?: boolean; accessLevel?: string }) => {
        const copy = path.join(dir, `copy-${++copies}.mp4`);
        fs.copyFileSync(clip, copy);
        const made = await ingestVideoFile(server.ctx, { filePath: copy, title: `Preview ${copies}`, actorId: owner.id, ...extra });
        if (!made.ok) throw new Error(made.error.message);
        return made.videoId;
      };
      const published = await ingest({ accessLevel: 'free' });
      const scheduled = await ingest({ publishAt: new Date(server.clock.now().getTime() + 30 * 24 * 3600_000).toISOString() });
      const hidden = await ingest({ published: false });
      const member = await approvedMember();
      const staff = {
        support: (await signedInStaff(server, api, owner.token, 'support')).token,
        moderator: (await signedInStaff(server, api, owner.token, 'moderator')).token,
        finance: (await signedInStaff(server, api, owner.token, 'finance')).token,
        editor: (await signedInStaff(server, api, owner.token, 'editor')).token,
      };
      const refusal = {
        success: false,
        error: 'Your staff role does not allow this (it needs the "videos" permission).',
        code: 'auth.permission_required',
      };
      for (const id of [scheduled, hidden]) {
        // The three roles without `videos`, through every way in: the details, the stream, a view, watch time.
        for (const token of [staff.support, staff.moderator, staff.finance]) {
          for (const answer of [
            await api.get(`/videos/${id}`, token),
            await api.get(`/videos/${id}/stream`, token),
            await api.post(`/videos/${id}/view`, { duration: 12 }, token),
            await api.post(`/videos/${id}/watch-time`, { seconds: 10 }, token),
          ]) {
            expect({ status: answer.status, body: answer.body }).toEqual({ status: 403, body: refusal });
          }
        }
        // The editor and the owner preview it; a member does not find it.
        for (const token of [staff.editor, owner.token]) {
          expect((await api.get(`/videos/${id}`, token)).status).toBe(200);
          const stream = await api.get(`/videos/${id}/stream`, token);
          expect(stream.status).toBe(200);
          expect(stream.body.data.streamUrl).toMatch(/^\/api\/media\/videos\//);
        }
        expect((await api.get(`/videos/${id}`, member.token)).status).toBe(404);
      }
      // A published video plays for every staff role, as for an entitled member.
      for (const token of [...Object.values(staff), owner.token, member.token]) {
        const stream = await api.get(`/videos/${published}/stream`, token);
        expect(stream.status).toBe(200);
        expect((await api.get(`/videos/${published}`, token)).status).toBe(200);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('an invitation to an address that has an account is refused, and acceptance never makes a second account', async () => {
    const member = await approvedMember();
    const refused = await api.post('/admin/staff/invitations', { email: member.email, role: 'support' }, owner.token);
    expect({ status: refused.status, code: codeOf(refused) }).toEqual({ status: 409, code: 'user.exists' });
    // The address registers after the invitation: accepting it then is refused, the member's account untouched.
    const email = 'registers.meanwhile@example.test';
    expect((await api.post('/admin/staff/invitations', { email, role: 'support' }, owner.token)).status).toBe(201);
    const { token } = await mailedInvitation(email);
    expect((await api.post('/auth/register', registrationPayload({ email }))).status).toBe(201);
    const late = await api.post('/auth/staff-invitations/accept', { token, password: 'staff-password-1', displayName: 'Not Me' });
    expect({ status: late.status, code: codeOf(late) }).toEqual({ status: 409, code: 'user.exists' });
    const signIn = await api.post('/auth/login', { email, password: 'staff-password-1' });
    expect(signIn.status).toBe(401);
  }, 60_000);
  it('an invitation link expires after 72 hours', async () => {
    const email = 'late.editor@example.test';
    expect((await api.post('/admin/staff/invitations', { email, role: 'editor' }, owner.token)).status).toBe(201);
    const { token } = await mailedInvitation(email);
    // Last in the file: the owner's access token does not outlive the jump.
    server.clock.advance(72 * 3600_000 + 1000);
    const late = await api.post('/auth/staff-invitations/accept', { token, password: 'editor-password-1', displayName: 'Ed' });
    expect(late.body).toEqual({
      success: false,
      error: 'This invitation link has expired. Please ask the site owner for a new one.',
      code: 'auth.invalid_link',
    });
  }, 60_000);
});
