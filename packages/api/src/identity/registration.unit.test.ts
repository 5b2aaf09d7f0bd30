import { describe, expect, it } from 'vitest';
import { ageOn, checkRegistration } from './registration.js';

const today = new Date('2026-01-15T12:00:00.000Z');
const valid = {
  email: 'ann@example.test',
  password: 'longenough',
  firstName: 'Ann',
  lastName: 'Lee',
  dateOfBirth: '1990-05-01',
  agreeToTerms: true,
};

const messageOf = (input: Partial<typeof valid>) => {
  const r = checkRegistration(input, today);
  return r.ok ? 'ok' : r.message;
};

describe('registration rules in spec §5 order', () => {
  it('accepts a valid registration', () => {
    expect(messageOf(valid)).toBe('ok');
  });
  it('names missing fields first, even with other problems', () => {
    expect(messageOf({ ...valid, firstName: '  ', password: 'short' })).toBe('All fields are required');
    expect(messageOf({ ...valid, email: undefined })).toBe('All fields are required');
  });
  it('then the password length, date of birth, age and terms', () => {
    expect(messageOf({ ...valid, password: 'short', dateOfBirth: undefined })).toBe('Password must be at least 8 characters long');
    expect(messageOf({ ...valid, dateOfBirth: '', agreeToTerms: false })).toBe('Date of birth is required for age verification');
    expect(messageOf({ ...valid, dateOfBirth: '2010-01-01', agreeToTerms: false })).toBe('You must be at least 18 years old to register');
    expect(messageOf({ ...valid, agreeToTerms: false })).toBe('You must agree to the Terms of Service');
    expect(messageOf({ ...valid, email: 'not-an-email' })).toBe('email: Invalid email address');
  });
  it('refuses impossible dates', () => {
    expect(messageOf({ ...valid, dateOfBirth: '1990-02-30' })).toMatch(/^dateOfBirth:/);
    expect(messageOf({ ...valid, dateOfBirth: '01/02/1990' })).toMatch(/^dateOfBirth:/);
  });
});

describe('ageOn', () => {
  it('counts whole years up to the birthday', () => {
    expect(ageOn('2008-01-15', today)).toBe(18);
    expect(ageOn('2008-01-16', today)).toBe(17);
    expect(ageOn('2030-01-01', today)).toBeNull();
  });
});
