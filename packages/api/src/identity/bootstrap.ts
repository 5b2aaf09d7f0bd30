/**
 * Admin bootstrap at start-up: the configured ADMIN_EMAIL account exists, is approved, has role
 * admin and the configured ADMIN_PASSWORD (a changed password is applied). Idempotent: a restart
 * with the same values appends nothing. In development without ADMIN_PASSWORD a random password is
 * generated once into DATA_DIR and printed once, marked as a dev default.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config/env.js';
import type { AppContext } from '../kernel/context.js';
import { runUserCommand } from './accounts.service.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { findUserByEmail } from './users.queries.js';

export const DEV_ADMIN_EMAIL = 'admin@localhost';

/** The spec §6 "admin account address": ADMIN_EMAIL, or admin@localhost outside production. */
export function configuredAdminEmail(env: Pick<Env, 'ADMIN_EMAIL' | 'NODE_ENV'>): string | undefined {
  return env.ADMIN_EMAIL ?? (env.NODE_ENV === 'production' ? undefined : DEV_ADMIN_EMAIL);
}

/** True when `email` is the configured admin account address (case-insensitive). */
export function isAdminEmail(env: Pick<Env, 'ADMIN_EMAIL' | 'NODE_ENV'>, email: string | null | undefined): boolean {
  const admin = configuredAdminEmail(env);
  return Boolean(admin && email && admin.toLowerCase() === email.trim().toLowerCase());
}

/** The dev password: generated once into DATA_DIR/dev-admin-password and printed when created. */
function devAdminPassword(env: Env, email: string): string {
  const file = path.join(env.DATA_DIR, 'dev-admin-password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = randomBytes(12).toString('base64url');
  fs.mkdirSync(env.DATA_DIR, { recursive: true });
  fs.writeFileSync(file, password, { mode: 0o600 });
  console.log(
    `[dev default] ADMIN_PASSWORD not set: generated an admin password.\n` +
      `[dev default]   admin e-mail:    ${email}\n` +
      `[dev default]   admin password:  ${password}\n` +
      `[dev default] (kept in ${file}; set ADMIN_EMAIL and ADMIN_PASSWORD for real use)`,
  );
  return password;
}

export async function bootstrapAdmin(ctx: AppContext): Promise<void> {
  const email = configuredAdminEmail(ctx.env);
  if (!email) {
    ctx.logger.warn('ADMIN_EMAIL is not set: no admin account is bootstrapped');
    return;
  }
  const existing = await findUserByEmail(ctx.db, email);
  let password = ctx.env.ADMIN_PASSWORD;
  if (!password && ctx.env.NODE_ENV !== 'production') password = devAdminPassword(ctx.env, email);
  if (!password && !existing) {
    ctx.logger.warn('ADMIN_PASSWORD is not set: the admin account (ADMIN_EMAIL) cannot be created');
    return;
  }
  // 1. Compare first: argon2 salts differ, so only a real mismatch may become a PasswordChanged.
  const passwordMatches = existing && password ? await verifyPassword(existing.password_hash, password) : Boolean(existing);
  const passwordHash = passwordMatches && existing ? existing.password_hash : await hashPassword(password as string);
  // 2. Let the decider emit only what is missing.
  const register = { userId: existing?.id ?? ctx.ids.next(), email, firstName: 'Admin', lastName: '', dateOfBirth: '', passwordHash };
  const ran = await runUserCommand(
    ctx,
    register.userId,
    { type: 'EnsureAdmin', register, passwordMatches, now: ctx.clock.now().toISOString() },
    { actorId: null },
  );
  if (!ran.ok) throw new Error(`admin bootstrap refused: ${ran.error.message}`);
  const { recorded } = ran.value;
  // The user id, not the address: no addresses in the log.
  if (recorded.length) ctx.logger.info({ userId: register.userId, events: recorded.map((e) => e.type) }, 'admin account bootstrapped');
}
