/** A password input with a show/hide toggle (a real button, announced with aria-pressed). */
import { type InputHTMLAttributes, type ReactNode, useId, useState } from 'react';

export interface PasswordFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  label: ReactNode;
}

export function PasswordField({ label, id, ...input }: PasswordFieldProps) {
  const auto = useId();
  const fid = id ?? auto;
  const [visible, setVisible] = useState(false);
  return (
    <div className="field">
      <label htmlFor={fid}>{label}</label>
      <div className="password-wrap">
        <input id={fid} className="input" type={visible ? 'text' : 'password'} {...input} />
        <button
          type="button"
          className="password-toggle"
          aria-pressed={visible}
          aria-controls={fid}
          aria-label={visible ? 'Hide password' : 'Show password'}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? 'Hide' : 'Show'}
        </button>
      </div>
    </div>
  );
}
