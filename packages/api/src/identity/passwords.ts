/**
 * Password hashing with argon2id at the OWASP minimum (m=19 MiB, t=2, p=1). A login for an unknown
 * e-mail still verifies against a fixed hash so both failures take the same time.
 *
 * The test suites hash at argon2id's smallest cost instead (PASSWORD_HASH_COST=minimum, honoured
 * only in a process whose NODE_ENV is `test`: a production or development server ignores it): the
 * same algorithm and code path, well under 1 ms instead of 20 ms of CPU a hash, and the suites hash
 * thousands of passwords. A hash records its own parameters, so either kind verifies anywhere.
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id` (a const enum in the typings, so spelled out here for isolated modules). */
const ARGON2ID = 2;
export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
/** argon2id's floor: 8 KiB of memory per lane, one pass. */
const TEST_MINIMUM = { algorithm: ARGON2ID, memoryCost: 8, timeCost: 1, parallelism: 1 } as const;

/** The cost in force: the suites' minimum only where both variables say so (read at each call: a suite's process may change them). */
const hashOptions = () => (process.env.NODE_ENV === 'test' && process.env.PASSWORD_HASH_COST === 'minimum' ? TEST_MINIMUM : ARGON2_OPTIONS);

export function hashPassword(password: string): Promise<string> {
  return hash(password, hashOptions());
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

const dummyHashes = new Map<object, Promise<string>>();

/** Burns the same time as a real check when the account does not exist (at the cost real hashes have now). */
export async function verifyAgainstDummy(password: string): Promise<false> {
  const options = hashOptions();
  let dummy = dummyHashes.get(options);
  if (!dummy) {
    dummy = hash('not-a-real-password-for-timing', options);
    dummyHashes.set(options, dummy);
  }
  await verifyPassword(await dummy, password);
  return false;
}
