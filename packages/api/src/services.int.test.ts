/**
 * The application layer without HTTP: identity's and billing's use cases called as the CLI or a job
 * would, on a real store, answering Result unions (never an HttpError).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachStore, startTestServer, type TestServer } from '../test/harness.js';
import { payerRefusal, submitPayment } from './billing/payments.service.js';
import { approveUser, register, rejectUser } from './identity/accounts.service.js';
import { createAuthLimits } from './identity/limits.js';
import { logIn, refreshSession, SESSION_EXPIRED, SUSPENDED_LOGIN } from './identity/session.service.js';
import { suspendUser } from './identity/suspension.service.js';
import { findMemberStanding, findUserByEmail } from './identity/users.queries.js';
import { SYSTEM_CALLER } from './shared/eventMetadata.js';

const member = (email: string) => ({
  email,
  password: 'member-password-1',
  firstName: 'Mia',
  lastName: 'Member',
  dateOfBirth: '1990-05-01',
  agreeToTerms: true,
});

forEachStore('application services without HTTP', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it('registration validates, records a pending member, and answers a taken address like a new one without making a second account', async () => {
    const { ctx } = server;
    const caller = { actorId: null };
    expect(await register(ctx, { ...member('young@example.test'), dateOfBirth: '2020-01-01' }, { geo: null, caller })).toEqual({
      ok: false,
      error: { code: 'validation.invalid_input', status: 400, message: 'You must be at least 18 years old to register' },
    });
    const made = await register(ctx, member('mia@example.test'), { geo: null, caller });
    expect(made.ok && made.value?.status).toBe('pending');
    // The same answer as a new registration, so the address's use is not revealed (issue 27 finding 15); no account is made.
    const again = await register(ctx, member('MIA@example.test'), { geo: null, caller });
    expect(again.ok && again.value?.status).toBe('pending');
    expect(await ctx.db.all('SELECT id FROM users WHERE email_lower = ?', ['mia@example.test'])).toHaveLength(1);
  });

  it('a rejected member signs in to a restricted session (their data rights), which refresh keeps; a suspended one cannot', async () => {
    const { ctx } = server;
    const limits = createAuthLimits(ctx);
    await register(ctx, member('rex@example.test'), { geo: null, caller: SYSTEM_CALLER });
    const user = await findUserByEmail(ctx.db, 'rex@example.test');
    const session = await logIn(ctx, limits, { email: 'rex@example.test', password: 'member-password-1' });
    expect(session.ok).toBe(true);
    expect((await rejectUser(ctx, user?.id as string, 'not eligible', { actorId: 'admin-1' })).ok).toBe(true);
    const again = await logIn(ctx, limits, { email: 'rex@example.test', password: 'member-password-1' });
    if (!again.ok || 'mfaRequired' in again.value) throw new Error('a rejected member signs in to the restricted session');
    expect(again.value.answer.user).toMatchObject({ status: 'rejected', approved: false });
    if (!session.ok || 'mfaRequired' in session.value) throw new Error('login failed');
    expect((await refreshSession(ctx, session.value.refresh.token)).ok).toBe(true);
    expect((await approveUser(ctx, user?.id as string, { actorId: 'admin-1' })).ok).toBe(false);

    await register(ctx, member('sue@example.test'), { geo: null, caller: SYSTEM_CALLER });
    const sue = (await findUserByEmail(ctx.db, 'sue@example.test'))?.id as string;
    await approveUser(ctx, sue, { actorId: 'admin-1' });
    const before = await logIn(ctx, limits, { email: 'sue@example.test', password: 'member-password-1' });
    if (!before.ok || 'mfaRequired' in before.value) throw new Error('login failed');
    expect((await suspendUser(ctx, sue, 'Chargeback', { actorId: 'admin-1' })).ok).toBe(true);
    expect(await logIn(ctx, limits, { email: 'sue@example.test', password: 'member-password-1' })).toEqual({
      ok: false,
      error: { code: 'auth.login_suspended', status: 403, message: SUSPENDED_LOGIN },
    });
    expect(await refreshSession(ctx, before.value.refresh.token)).toEqual({
      ok: false,
      error: { code: 'auth.session_expired', status: 401, message: SESSION_EXPIRED },
    });
  });

  it('payments: only approved members, own account, exact price; a hash is used once', async () => {
    const { ctx } = server;
    await register(ctx, member('pay@example.test'), { geo: null, caller: SYSTEM_CALLER });
    const id = (await findUserByEmail(ctx.db, 'pay@example.test'))?.id as string;
    const pending = await findMemberStanding(ctx.db, id);
    expect(payerRefusal(pending as NonNullable<typeof pending>)?.error.code).toBe('payment.approval_required');
    await approveUser(ctx, id, { actorId: 'admin-1' });
    const payer = (await findMemberStanding(ctx.db, id)) as NonNullable<typeof pending>;
    const caller = { actorId: id };
    const hash = 'cd'.repeat(32);
    expect((await submitPayment(ctx, payer, { userId: 'someone-else', planType: 'monthly', btcAmount: '0.0005' }, caller)).ok).toBe(false);
    const paid = await submitPayment(ctx, payer, { planType: 'monthly', btcAmount: '0.0005', transactionHash: hash.toUpperCase() }, caller);
    expect(paid.ok && paid.value.tx_hash).toBe(hash);
    expect(await submitPayment(ctx, payer, { planType: 'annual', btcAmount: '0.005', transactionHash: hash }, caller)).toEqual({
      ok: false,
      error: { code: 'payment.tx_hash_used', status: 409, message: 'This transaction hash has already been used for another payment' },
    });
  });
});
