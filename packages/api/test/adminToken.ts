/**
 * An admin bearer token for integration tests: the bootstrapped TEST_ADMIN through
 * POST /api/auth/login when the identity module serves it, else a users row written directly and a
 * token signed with the server's secret (so suites of other modules do not wait for identity).
 */
import { signAccessToken } from '../src/http/auth.js';
import { USERS_SCHEMA } from '../src/identity/users.schema.js';
import { apiClient, TEST_ADMIN, type TestServer } from './harness.js';

export async function adminToken(server: Pick<TestServer, 'url' | 'ctx'>): Promise<string> {
  const login = await apiClient(server.url).post<{ token: string }>('/auth/login', TEST_ADMIN);
  if (login.status === 200 && login.body.data?.token) return login.body.data.token;
  const db = server.ctx.db;
  await db.exec(USERS_SCHEMA);
  const id = 'test-admin';
  const at = new Date().toISOString();
  await db.run(
    `INSERT INTO users (id, email, email_lower, first_name, last_name, date_of_birth, password_hash, role, status, approved, created_at)
     VALUES (?, ?, ?, 'Test', 'Admin', '1980-01-01', 'x', 'admin', 'approved', 1, ?) ON CONFLICT (id) DO NOTHING`,
    [id, TEST_ADMIN.email, TEST_ADMIN.email, at],
  );
  return signAccessToken(server.ctx, { id, role: 'admin' });
}
