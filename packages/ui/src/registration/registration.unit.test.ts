/**
 * The registration rules, shared by the API and the web form. The time-zone cases run with the
 * process in far-off zones: a rule that read the local calendar would fail them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ageOn,
  checkRegistration,
  EMAIL_PATTERN,
  maxBirthDate,
  REGISTRATION_MESSAGES,
  type RegistrationForm,
  validateLogin,
  validateRegistration,
} from './registration';

const today = new Date('2026-11-22T12:00:00.000Z');
const valid: RegistrationForm = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.test',
  dateOfBirth: '1990-05-01',
  password: 'long-enough',
  confirmPassword: 'long-enough',
  agreeToTerms: true,
  ageCertified: true,
};
const payload = {
  email: valid.email,
  password: valid.password,
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-05-01',
  agreeToTerms: true,
};
const serverMessage = (patch: Record<string, unknown>) => {
  const r = checkRegistration({ ...payload, ...patch }, today);
  return r.ok ? 'ok' : r.message;
};

describe('validateRegistration (the web form)', () => {
  it('accepts a complete, adult, consenting form', () => {
    expect(validateRegistration(valid, today)).toBeNull();
  });

  it.each([
    ['email', { email: '' }],
    ['password', { password: '', confirmPassword: '' }],
    ['first name', { firstName: '  ' }],
    ['last name', { lastName: '' }],
  ])('requires the %s', (_name, patch) => {
    expect(validateRegistration({ ...valid, ...patch }, today)).toBe('All fields are required');
  });

  it('checks the rules in the spec order, one message at a time', () => {
    let form: RegistrationForm = {
      firstName: '',
      lastName: '',
      email: '',
      dateOfBirth: '',
      password: 'short',
      confirmPassword: 'other',
      agreeToTerms: false,
      ageCertified: false,
    };
    const seen: string[] = [];
    const fixes: Partial<RegistrationForm>[] = [
      { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' },
      { password: 'long-enough' },
      { confirmPassword: 'long-enough' },
      { dateOfBirth: '2010-01-01' },
      { dateOfBirth: '1990-05-01' },
      { agreeToTerms: true },
      { ageCertified: true },
    ];
    for (const fix of fixes) {
      seen.push(validateRegistration(form, today) as string);
      form = { ...form, ...fix };
    }
    expect(seen).toEqual([
      'All fields are required',
      'Password must be at least 8 characters long',
      'Passwords do not match',
      'Date of birth is required for age verification',
      'You must be at least 18 years old to register',
      'You must agree to the Terms of Service',
      'You must verify that you are 18 years or older',
    ]);
    expect(validateRegistration(form, today)).toBeNull();
  });

  it('accepts exactly 8 characters and rejects 7', () => {
    expect(validateRegistration({ ...valid, password: '12345678', confirmPassword: '12345678' }, today)).toBeNull();
    expect(validateRegistration({ ...valid, password: '1234567', confirmPassword: '1234567' }, today)).toBe(
      'Password must be at least 8 characters long',
    );
  });

  it('turns 18 on the birthday, not the day before', () => {
    expect(validateRegistration({ ...valid, dateOfBirth: '2008-11-22' }, today)).toBeNull();
    expect(validateRegistration({ ...valid, dateOfBirth: '2008-11-23' }, today)).toBe('You must be at least 18 years old to register');
  });

  it('refuses impossible dates such as 1990-02-31 instead of rolling them over (as the server does)', () => {
    for (const dateOfBirth of ['1990-02-31', '1990-02-29', '1990-13-01', '1990-04-31', '1990-00-10', '01/02/1990']) {
      expect({ dateOfBirth, form: validateRegistration({ ...valid, dateOfBirth }, today) }).toEqual({
        dateOfBirth,
        form: REGISTRATION_MESSAGES.dateOfBirthInvalid,
      });
      expect(serverMessage({ dateOfBirth })).toBe(REGISTRATION_MESSAGES.dateOfBirthInvalid);
    }
    expect(validateRegistration({ ...valid, dateOfBirth: '1992-02-29' }, today)).toBeNull();
  });
});

describe('checkRegistration (the server: no confirmation, no certification field)', () => {
  it('gives the same first message as the form, in spec order', () => {
    expect(serverMessage({})).toBe('ok');
    expect(serverMessage({ firstName: '  ', password: 'short' })).toBe('All fields are required');
    expect(serverMessage({ email: undefined })).toBe('All fields are required');
    expect(serverMessage({ password: 'short', dateOfBirth: undefined })).toBe('Password must be at least 8 characters long');
    expect(serverMessage({ dateOfBirth: '', agreeToTerms: false })).toBe('Date of birth is required for age verification');
    expect(serverMessage({ dateOfBirth: '2010-01-01', agreeToTerms: false })).toBe('You must be at least 18 years old to register');
    expect(serverMessage({ agreeToTerms: false })).toBe('You must agree to the Terms of Service');
    expect(serverMessage({ agreeToTerms: null })).toBe('You must agree to the Terms of Service');
    expect(serverMessage({ email: 'not-an-email' })).toBe('email: Invalid email address');
    expect(serverMessage({ dateOfBirth: '2030-01-01' })).toBe(REGISTRATION_MESSAGES.dateOfBirthInvalid);
  });
  it('answers the registration trimmed', () => {
    const r = checkRegistration({ ...payload, email: ' ada@example.test ', firstName: ' Ada ' }, today);
    expect(r).toEqual({
      ok: true,
      value: { email: 'ada@example.test', password: 'long-enough', firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1990-05-01' },
    });
  });
  it("checks e-mails as zod's z.email() does (its pattern, copied without zod)", () => {
    const samples = [
      'a@b.co',
      'ann.lee+x@mail.example.test',
      "o'neil@example.com",
      'a@localhost',
      '.a@b.co',
      'a..b@c.de',
      'a@-b.co',
      'a@b.c',
      'a b@c.de',
      'a@b_c.de',
      'x-@y.zz',
    ];
    for (const email of samples)
      expect({ email, ours: EMAIL_PATTERN.test(email) }).toEqual({ email, ours: z.email().safeParse(email).success });
  });
});

describe('the birthday is a UTC calendar date, whatever the local zone', () => {
  const savedTz = process.env.TZ;
  afterAll(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  // Someone born on 23 November 2008 turns 18 on 23 November 2026, UTC.
  describe.each([
    // 02:00 UTC on 23 November is 18:00 on 22 November in Los Angeles: locally still yesterday.
    { tz: 'America/Los_Angeles', now: '2026-11-23T02:00:00.000Z', localDay: 22, utcDay: 23, age: 18, max: '2008-11-23' },
    // 12:00 UTC on 22 November is 02:00 on 23 November on Kiritimati (UTC+14): locally already tomorrow.
    { tz: 'Pacific/Kiritimati', now: '2026-11-22T12:00:00.000Z', localDay: 23, utcDay: 22, age: 17, max: '2008-11-22' },
  ])('in $tz at $now', ({ tz, now: iso, localDay, utcDay, age, max }) => {
    const now = new Date(iso);
    beforeAll(() => {
      process.env.TZ = tz;
    });
    it('the local calendar really shows another day (the case bites)', () => {
      expect({ local: now.getDate(), utc: now.getUTCDate() }).toEqual({ local: localDay, utc: utcDay });
    });
    it(`the age is ${age} on both sides, by the UTC calendar`, () => {
      const expected = age >= 18 ? null : REGISTRATION_MESSAGES.tooYoung;
      expect(ageOn('2008-11-23', now)).toBe(age);
      expect(validateRegistration({ ...valid, dateOfBirth: '2008-11-23' }, now)).toBe(expected);
      const server = checkRegistration({ ...payload, dateOfBirth: '2008-11-23' }, now);
      expect(server.ok ? null : server.message).toBe(expected);
      expect(maxBirthDate(now)).toBe(max);
    });
  });
});

describe('ageOn / maxBirthDate', () => {
  it('computes whole years', () => {
    expect(ageOn('2000-11-22', today)).toBe(26);
    expect(ageOn('2000-11-23', today)).toBe(25);
    expect(ageOn('not a date', today)).toBeNull();
    expect(ageOn('1990-02-31', today)).toBeNull();
    expect(ageOn('2030-01-01', today)).toBeNull();
  });
  it('is today minus 18 years', () => {
    expect(maxBirthDate(today)).toBe('2008-11-22');
    expect(maxBirthDate(new Date('2028-02-29T12:00:00Z'))).toBe('2010-02-28');
  });
});

describe('validateLogin', () => {
  it('needs a valid e-mail and a password', () => {
    expect(validateLogin('nope', 'x')).toBe('Please enter a valid email address');
    expect(validateLogin('a@b.co', '')).toBe('Please enter your password');
    expect(validateLogin('a@b.co', 'x')).toBeNull();
  });
});
