/** `/register`: every field of spec §2, the checks of §5 in order, then /registration-success. */
import { Alert, Button, CheckboxField, FormField, PasswordField } from '@members/ui';
import { maxBirthDate, type RegistrationForm, validateRegistration } from '@members/ui/registration';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { api } from '../app/api';

const EMPTY: RegistrationForm = {
  firstName: '',
  lastName: '',
  email: '',
  dateOfBirth: '',
  password: '',
  confirmPassword: '',
  agreeToTerms: false,
  ageCertified: false,
};

export default function Register() {
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const text = (k: keyof RegistrationForm) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const check = (k: 'agreeToTerms' | 'ageCertified') => (e: { target: { checked: boolean } }) =>
    setForm((f) => ({ ...f, [k]: e.target.checked }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const invalid = validateRegistration(form);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // confirmPassword and the age certification stay in the browser (spec §3).
      await api.register({
        email: form.email.trim(),
        password: form.password,
        firstName: form.firstName.trim(),
        lastName: form.lastName.trim(),
        dateOfBirth: form.dateOfBirth,
        agreeToTerms: form.agreeToTerms,
      });
      navigate('/registration-success');
    } catch (err) {
      console.error('Registration failed', err);
      setError((err as Error).message || 'Registration failed. Please try again.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="auth-page">
      <div className="card auth-card wide">
        <h1>Create Your Account</h1>
        <p className="notice-18">18+ ONLY, Adult Content, Age Verification Required</p>
        <form onSubmit={submit} noValidate>
          {error && <Alert>{error}</Alert>}
          <div className="form-grid">
            <FormField label="First Name" name="firstName" autoComplete="given-name" value={form.firstName} onChange={text('firstName')} />
            <FormField label="Last Name" name="lastName" autoComplete="family-name" value={form.lastName} onChange={text('lastName')} />
          </div>
          <FormField label="Email" name="email" type="email" autoComplete="email" value={form.email} onChange={text('email')} />
          <FormField
            label="Date of Birth"
            name="dateOfBirth"
            type="date"
            max={maxBirthDate(new Date())}
            value={form.dateOfBirth}
            onChange={text('dateOfBirth')}
            hint="You must be at least 18 years old."
          />
          <PasswordField label="Password" name="password" autoComplete="new-password" value={form.password} onChange={text('password')} />
          <PasswordField
            label="Confirm Password"
            name="confirmPassword"
            autoComplete="new-password"
            value={form.confirmPassword}
            onChange={text('confirmPassword')}
          />
          <CheckboxField
            name="ageCertified"
            checked={form.ageCertified}
            onChange={check('ageCertified')}
            label="I certify that I am 18 years of age or older"
          />
          <CheckboxField
            name="agreeToTerms"
            checked={form.agreeToTerms}
            onChange={check('agreeToTerms')}
            label={
              <>
                I agree to the{' '}
                <Link to="/tos" target="_blank">
                  Terms of Service
                </Link>{' '}
                and{' '}
                <Link to="/privacy" target="_blank">
                  Privacy Policy
                </Link>
              </>
            }
          />
          <Alert tone="info">
            Every account is manually approved by our team. You will receive an email once your account has been reviewed.
          </Alert>
          <Button type="submit" block busy={busy} busyLabel="Creating Account...">
            Create Account
          </Button>
        </form>
        <div className="auth-links">
          <span>
            Already a member? <Link to="/login">Sign In</Link>
          </span>
        </div>
      </div>
    </div>
  );
}
