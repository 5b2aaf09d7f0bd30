/**
 * The password-hash cost: OWASP's argon2id parameters wherever a server runs, argon2id's floor only
 * in a test process that asks for it (PASSWORD_HASH_COST=minimum with NODE_ENV=test), and a hash of
 * either kind verifies whatever the cost in force (a hash carries its parameters).
 */
import { afterEach, expect, it } from 'vitest';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './passwords';

const saved = { NODE_ENV: process.env.NODE_ENV, PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST };
const setEnv = (nodeEnv: string, cost: string | undefined) => {
  process.env.NODE_ENV = nodeEnv;
  if (cost === undefined) delete process.env.PASSWORD_HASH_COST;
  else process.env.PASSWORD_HASH_COST = cost;
};
afterEach(() => setEnv(saved.NODE_ENV as string, saved.PASSWORD_HASH_COST));

const params = (h: string) => /^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$/.exec(h)?.[1];

it('hashes at the OWASP cost in production and development, whatever PASSWORD_HASH_COST says', async () => {
  for (const nodeEnv of ['production', 'development']) {
    setEnv(nodeEnv, 'minimum');
    expect(params(await hashPassword('correct horse battery'))).toBe('m=19456,t=2,p=1');
  }
  setEnv('test', undefined);
  expect(params(await hashPassword('correct horse battery'))).toBe('m=19456,t=2,p=1');
});

it("hashes at argon2id's floor in a test process that asks for it; both kinds verify under either cost", async () => {
  setEnv('test', 'minimum');
  const cheap = await hashPassword('correct horse battery');
  expect(params(cheap)).toBe('m=8,t=1,p=1');
  expect(await verifyAgainstDummy('anything')).toBe(false);
  setEnv('production', 'minimum');
  const full = await hashPassword('correct horse battery');
  expect(await verifyPassword(cheap, 'correct horse battery')).toBe(true);
  expect(await verifyPassword(cheap, 'wrong horse battery')).toBe(false);
  setEnv('test', 'minimum');
  expect(await verifyPassword(full, 'correct horse battery')).toBe(true);
});
