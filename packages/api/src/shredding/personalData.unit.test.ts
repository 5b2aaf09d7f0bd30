/** The sealing rules and the key wrapping of crypto-shredding, without a database. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DataKeyError, masterKeysOf, unwrapKey, wrapKey, wrappedKid } from './dataKeys.js';
import { erase, isPersonalField, seal, unseal } from './personalData.js';

const registered = {
  userId: 'u-1234567890',
  email: 'a@b.test',
  firstName: 'Ann',
  lastName: 'Bee',
  dateOfBirth: '1990-01-01',
  passwordHash: '$argon2id$…',
  role: 'member',
  registeredAt: '2026-01-01T00:00:00.000Z',
  geoCountry: 'FR',
  geoRegion: null,
};

describe('personal fields', () => {
  it('are named as such in any event; ids, money, plans, dates, addresses and tx hashes are not', () => {
    for (const f of [
      'email',
      'userEmail',
      'newEmail',
      'firstName',
      'lastName',
      'dateOfBirth',
      'geoCountry',
      'geoRegion',
      'ip',
      'clientIp',
      'userAgent',
      'passwordHash',
    ])
      expect({ f, personal: isPersonalField('AnyEvent', f) }).toEqual({ f, personal: true });
    for (const f of ['userId', 'paymentId', 'amountSats', 'planType', 'registeredAt', 'address', 'txHash', 'status', 'reason', 'role'])
      expect({ f, personal: isPersonalField('PaymentRejected', f) }).toEqual({ f, personal: false });
    expect(isPersonalField('UserRejected', 'reason')).toBe(true);
    expect(isPersonalField('UserSuspended', 'reason')).toBe(true);
    // A chat message, the team's replies too (both sealed under the member's key).
    expect(isPersonalField('ChatMessageSent', 'text')).toBe(true);
    expect(isPersonalField('ChatMessageSent', 'authorId')).toBe(false);
    expect(isPersonalField('MemberErased', 'reason')).toBe(false);
  });
});

describe('seal / unseal / erase', () => {
  const key = randomBytes(32);

  it('moves the personal fields into an envelope and back', () => {
    const sealed = seal('UserRegistered', registered, registered.userId, key);
    expect(Object.keys(sealed).sort()).toEqual(['personal', 'registeredAt', 'role', 'userId']);
    // The ciphertext is random base64url, so a short value such as "FR" may occur in it by chance:
    // look for the values in what is left in clear, and in the ciphertext's bytes, not its text.
    const { iv, ct, ...envelope } = sealed.personal as { iv: string; ct: string };
    expect(JSON.stringify({ ...sealed, personal: envelope })).not.toMatch(/a@b\.test|Ann|Bee|1990-01-01|"FR"|argon/);
    // In the ~170 random bytes a 3-byte value ("Ann") turns up about once in 100,000 runs: look for
    // each value as the sealed JSON would hold it in clear, in its quotes (5+ bytes: never by chance).
    const bytes = Buffer.concat([Buffer.from(iv, 'base64url'), Buffer.from(ct, 'base64url')]).toString('latin1');
    for (const value of ['"a@b.test"', '"Ann"', '"Bee"', '"1990-01-01"', '"FR"', '$argon2id$'])
      expect({ value, inCiphertext: bytes.includes(value) }).toEqual({ value, inCiphertext: false });
    expect((sealed.personal as { fields: string[] }).fields.sort()).toEqual(
      ['dateOfBirth', 'email', 'firstName', 'geoCountry', 'geoRegion', 'lastName', 'passwordHash'].sort(),
    );
    expect(unseal('UserRegistered', sealed, key)).toEqual(registered);
  });

  it('refuses another key, or an envelope moved to another event type', () => {
    const sealed = seal('UserRegistered', registered, registered.userId, key);
    expect(() => unseal('UserRegistered', sealed, randomBytes(32))).toThrow();
    expect(() => unseal('ProfileUpdated', sealed, key)).toThrow();
  });

  it('reads an erased member as placeholders, sealed or written in clear', () => {
    const expected = {
      userId: registered.userId,
      role: 'member',
      registeredAt: registered.registeredAt,
      email: 'erased member u-123456',
      firstName: 'erased',
      lastName: 'member u-123456',
      dateOfBirth: '',
      passwordHash: '',
      geoCountry: null,
      geoRegion: null,
    };
    expect(erase('UserRegistered', seal('UserRegistered', registered, registered.userId, key), registered.userId)).toEqual(expected);
    expect(erase('UserRegistered', registered, registered.userId)).toEqual(expected);
  });
});

describe('data key wrapping', () => {
  const old = masterKeysOf('old-secret-old-secret-old-secret-0123');
  const next = masterKeysOf('new-secret-new-secret-new-secret-0123', 'old-secret-old-secret-old-secret-0123');

  it('binds a wrapped key to its member and names its master key', () => {
    const dataKey = randomBytes(32);
    const wrapped = wrapKey(old.current, 'member-a', dataKey);
    expect(wrappedKid(wrapped)).toBe(old.current.kid);
    expect(unwrapKey(old, 'member-a', wrapped)).toEqual(dataKey);
    expect(() => unwrapKey(old, 'member-b', wrapped)).toThrow(DataKeyError);
    // During a rotation the previous master key still unwraps; without it the error says which key is needed.
    expect(unwrapKey(next, 'member-a', wrapped)).toEqual(dataKey);
    expect(() => unwrapKey(masterKeysOf('new-secret-new-secret-new-secret-0123'), 'member-a', wrapped)).toThrow(/DATA_KEY_SECRET/);
  });
});
