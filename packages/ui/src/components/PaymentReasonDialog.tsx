/**
 * Asks for the admin's reason before a decision on a payment: rejecting it, or verifying it when
 * the chain does not show it confirmed (the override the server keeps in the event). A modal on the
 * native <dialog> (focus moves to the reason, Tab stays inside, Escape cancels) with a required
 * reason of at most 500 characters.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import type { PendingPayment } from '../api/types';
import { formatBtc } from '../money/btc';
import { Button } from './Button';
import { TextAreaField } from './FormField';
import { useModalDialog } from './useModalDialog';

export const REJECT_REASON_MAX = 500;

export interface PaymentReasonDialogProps {
  /** The payment decided on; null keeps the dialog closed. */
  payment: PendingPayment | null;
  onConfirm(payment: PendingPayment, reason: string): void;
  onCancel(): void;
}

interface ReasonCopy {
  title: string;
  message(p: PendingPayment): string;
  missing: string;
  confirm: string;
  variant: 'danger' | 'success';
}

const plan = (p: PendingPayment) => (p.planType === 'annual' ? 'annual' : p.planType === 'custom' ? 'custom request' : 'monthly');

const REJECT: ReasonCopy = {
  title: 'Reject payment',
  message: (p) => `Reject the ${plan(p)} payment of ${p.userEmail} (${formatBtc(p.btcAmount)})? The subscription will not be activated.`,
  missing: 'Please give a reason for rejecting the payment',
  confirm: 'Reject Payment',
  variant: 'danger',
};

function ReasonDialog({
  payment,
  onConfirm,
  onCancel,
  copy,
  warning,
}: PaymentReasonDialogProps & { copy: ReasonCopy; warning?: string | null }) {
  const titleId = useId();
  const msgId = useId();
  const reasonId = useId();
  const errorId = `${reasonId}-error`;
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const open = payment !== null;
  const ref = useModalDialog(open, () => {
    setReason('');
    setError(null);
  });
  // The reason gets the focus once the dialog is shown (showModal would focus the first button).
  useEffect(() => {
    if (open) ref.current?.querySelector('textarea')?.focus();
  }, [open, ref]);

  function submit(e: FormEvent) {
    e.preventDefault();
    const text = reason.trim();
    if (!text) {
      setError(copy.missing);
      ref.current?.querySelector('textarea')?.focus();
      return;
    }
    if (payment) onConfirm(payment, text);
  }

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={msgId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <form onSubmit={submit} noValidate>
        <h2 id={titleId} className="dialog-title">
          {copy.title}
        </h2>
        <p id={msgId}>
          {payment ? copy.message(payment) : null}
          {warning ? (
            <>
              {' '}
              <strong>{warning}</strong>
            </>
          ) : null}
        </p>
        <TextAreaField
          id={reasonId}
          label="Reason *"
          hint={`Required, at most ${REJECT_REASON_MAX} characters.`}
          value={reason}
          maxLength={REJECT_REASON_MAX}
          rows={3}
          required
          aria-required="true"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${reasonId}-hint ${errorId}` : `${reasonId}-hint`}
          onChange={(e) => {
            setReason(e.target.value);
            if (error) setError(null);
          }}
        />
        {error && (
          <p id={errorId} className="field-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" variant={copy.variant}>
            {copy.confirm}
          </Button>
        </div>
      </form>
    </dialog>
  );
}

/** 'Reject payment': the member is told the reason. */
export function RejectPaymentDialog(props: PaymentReasonDialogProps) {
  return <ReasonDialog {...props} copy={REJECT} />;
}

const OVERRIDE: ReasonCopy = {
  title: 'Verify without chain evidence',
  message: (p) =>
    `The site's Bitcoin node does not show the ${plan(p)} payment of ${p.userEmail} (${formatBtc(p.btcAmount)}) confirmed. Verify it anyway? Your reason is kept with the verification for the auditors.`,
  missing: 'Please say why you verify anyway',
  confirm: 'Verify Anyway',
  variant: 'success',
};

/** 'Verify without chain evidence': the chain's refusal shown, the admin's reason required (kept in the event). */
export function VerifyOverrideDialog(props: PaymentReasonDialogProps & { blocker: string | null }) {
  return <ReasonDialog {...props} copy={OVERRIDE} warning={props.blocker} />;
}
