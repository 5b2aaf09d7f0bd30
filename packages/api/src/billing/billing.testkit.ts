/**
 * Test helpers for billing's integration suites: members seeded straight as identity events (so the
 * suites do not depend on the registration rate limits), their tokens, and the admin's token.
 */
import { createHmac } from 'node:crypto';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, TEST_ADMIN, type TestServer } from '../../test/harness.js';
import { tokenSecret } from '../http/auth.js';
import { appendTestUser } from '../identity/identity.testkit.js';

export interface Member {
  id: string;
  email: string;
  /** A fresh access token at the server's (test) clock, so moving time never expires it. */
  readonly token: string;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** Signs an access token synchronously, exactly as `signAccessToken` does (HS256, the server's secret). */
export function tokenAt(server: TestServer, id: string, role: 'admin' | 'member'): string {
  const iat = Math.floor(server.clock.now().getTime() / 1000);
  const head = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(
    JSON.stringify({ sub: id, role, typ: 'access', iat, exp: iat + server.ctx.env.ACCESS_TOKEN_TTL_SECONDS }),
  )}`;
  return `${head}.${createHmac('sha256', tokenSecret(server.ctx)).update(head).digest('base64url')}`;
}

let seq = 0;

/** Appends UserRegistered (and UserApproved unless `approved: false`) and signs a token. */
export async function seedMember(server: TestServer, opts: { approved?: boolean; email?: string } = {}): Promise<Member> {
  seq += 1;
  const id = `member-${Date.now().toString(36)}-${seq}`;
  const email = opts.email ?? `${id}@example.test`;
  await appendTestUser(server.ctx, { id, email, approved: opts.approved !== false });
  return {
    id,
    email,
    get token() {
      return tokenAt(server, id, 'member');
    },
  };
}

export const HASH = (n: number | string) => String(n).padStart(64, '0').replace(/^0/, 'a');

/** A client plus the admin's token, with the calls the suites repeat. */
export async function billingTestKit(server: TestServer) {
  const api = apiClient(server.url);
  await adminToken(server); // makes sure the admin exists
  const row = await server.ctx.db.get<{ id: string }>('SELECT id FROM users WHERE email_lower = ?', [TEST_ADMIN.email]);
  const adminId = row?.id ?? 'test-admin';
  return {
    api,
    get admin() {
      return tokenAt(server, adminId, 'admin');
    },
    submit: (m: Member, body: Record<string, unknown> = {}) =>
      api.post('/payments/submit-bitcoin-payment', { userId: m.id, planType: 'annual', btcAmount: '0.005', ...body }, m.token),
    pending: () => api.get('/admin/pending-payments', tokenAt(server, adminId, 'admin')),
    verify: (paymentId: string) => api.post(`/admin/payments/${paymentId}/verify`, undefined, tokenAt(server, adminId, 'admin')),
    subscription: (m: Member) => api.get('/payments/subscription', m.token),
    user: (m: Member) =>
      server.ctx.db.get<{ membership_status: string; subscription_status: string | null }>(
        'SELECT membership_status, subscription_status FROM users WHERE id = ?',
        [m.id],
      ),
  };
}
