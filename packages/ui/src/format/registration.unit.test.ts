import { describe, expect, it } from 'vitest';
import { ageOn, maxBirthDate, type RegistrationForm, validateLogin, validateRegistration } from './registration';

const today = new Date(2026, 10, 22); // 22 November 2026
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

describe('validateRegistration', () => {
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
});

describe('ageOn / maxBirthDate', () => {
  it('computes whole years', () => {
    expect(ageOn('2000-11-22', today)).toBe(26);
    expect(ageOn('2000-11-23', today)).toBe(25);
    expect(ageOn('not a date', today)).toBeNaN();
  });
  it('is today minus 18 years', () => {
    expect(maxBirthDate(today)).toBe('2008-11-22');
    expect(maxBirthDate(new Date(2028, 1, 29))).toBe('2010-02-28');
  });
});

describe('validateLogin', () => {
  it('needs a valid e-mail and a password', () => {
    expect(validateLogin('nope', 'x')).toBe('Please enter a valid email address');
    expect(validateLogin('a@b.co', '')).toBe('Please enter your password');
    expect(validateLogin('a@b.co', 'x')).toBeNull();
  });
});
