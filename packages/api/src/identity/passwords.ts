/**
 * Password hashing with argon2id at the OWASP minimum (m=19 MiB, t=2, p=1). A login for an unknown
 * e-mail still verifies against a fixed hash so both failures take the same time.
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` (a const enum in the typings, so spelled out here for isolated modules). */
const ARGON2ID = 2;
export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/** Burns the same time as a real check when the account does not exist. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('not-a-real-password-for-timing');
  await verifyPassword(await dummyHash, password);
  return false;
}
