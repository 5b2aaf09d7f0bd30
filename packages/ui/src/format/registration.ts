/** Client-side registration checks of spec §5, in the spec's order, with its exact messages. */

export const MIN_AGE = 18;
export const MIN_PASSWORD_LENGTH = 8;

export interface RegistrationForm {
  firstName: string;
  lastName: string;
  email: string;
  dateOfBirth: string;
  password: string;
  confirmPassword: string;
  agreeToTerms: boolean;
  ageCertified: boolean;
}

/** Whole years between a YYYY-MM-DD birth date and `today`. */
export function ageOn(dateOfBirth: string, today: Date): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateOfBirth);
  if (!m) return Number.NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  let age = today.getFullYear() - y;
  const beforeBirthday = today.getMonth() + 1 < mo || (today.getMonth() + 1 === mo && today.getDate() < d);
  if (beforeBirthday) age--;
  return age;
}

/** The register date picker's maximum: today minus 18 years, as YYYY-MM-DD. */
export function maxBirthDate(today: Date): string {
  const y = today.getFullYear() - MIN_AGE;
  const mo = String(today.getMonth() + 1).padStart(2, '0');
  let d = today.getDate();
  // 29 February has no twin in a non-leap year: the last allowed day is the 28th.
  if (mo === '02' && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) d = 28;
  return `${y}-${mo}-${String(d).padStart(2, '0')}`;
}

/**
 * The first failing rule's message, or null when the form may be sent.
 * @example validateRegistration({ ...form, password: 'short' }, new Date()) // 'Password must be at least 8 characters long'
 */
export function validateRegistration(form: RegistrationForm, today: Date = new Date()): string | null {
  if (!form.email.trim() || !form.password || !form.firstName.trim() || !form.lastName.trim()) return 'All fields are required';
  if (form.password.length < MIN_PASSWORD_LENGTH) return 'Password must be at least 8 characters long';
  if (form.password !== form.confirmPassword) return 'Passwords do not match';
  if (!form.dateOfBirth) return 'Date of birth is required for age verification';
  const age = ageOn(form.dateOfBirth, today);
  if (!(age >= MIN_AGE)) return 'You must be at least 18 years old to register';
  if (!form.agreeToTerms) return 'You must agree to the Terms of Service';
  if (!form.ageCertified) return 'You must verify that you are 18 years or older';
  return null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Login needs a valid e-mail format and a non-empty password (spec §5). */
export function validateLogin(email: string, password: string): string | null {
  if (!EMAIL.test(email.trim())) return 'Please enter a valid email address';
  if (!password) return 'Please enter your password';
  return null;
}
