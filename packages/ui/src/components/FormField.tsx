/** Labelled form controls: every input gets a visible label tied by id, and an optional hint. */
import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes, useId } from 'react';

interface FieldFrame {
  label: ReactNode;
  hint?: ReactNode;
}

function Frame({ id, label, hint, children }: FieldFrame & { id: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <small className="field-hint" id={`${id}-hint`}>
          {hint}
        </small>
      )}
    </div>
  );
}

export type FormFieldProps = FieldFrame & InputHTMLAttributes<HTMLInputElement>;

export function FormField({ label, hint, id, ...input }: FormFieldProps) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <Frame id={fid} label={label} hint={hint}>
      <input id={fid} className="input" aria-describedby={hint ? `${fid}-hint` : undefined} {...input} />
    </Frame>
  );
}

export type SelectFieldProps = FieldFrame & SelectHTMLAttributes<HTMLSelectElement> & { options: { value: string; label: string }[] };

export function SelectField({ label, hint, id, options, ...select }: SelectFieldProps) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <Frame id={fid} label={label} hint={hint}>
      <select id={fid} className="input" {...select}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Frame>
  );
}

export type TextAreaFieldProps = FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>;

export function TextAreaField({ label, hint, id, ...area }: TextAreaFieldProps) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <Frame id={fid} label={label} hint={hint}>
      <textarea id={fid} className="input" {...area} />
    </Frame>
  );
}

/** A checkbox with its label beside it. */
export function CheckboxField({ label, id, ...input }: { label: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <div className="field field-check">
      <input id={fid} type="checkbox" {...input} />
      <label htmlFor={fid}>{label}</label>
    </div>
  );
}
