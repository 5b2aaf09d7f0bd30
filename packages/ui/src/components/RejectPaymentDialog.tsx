/**
 * Asks for the reason before a payment is rejected: a modal on the native <dialog> (focus moves to
 * the reason, Tab stays inside, Escape cancels) with a required reason of at most 500 characters.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import type { PendingPayment } from '../api/types';
import { formatBtc } from '../money/btc';
import { Button } from './Button';
import { TextAreaField } from './FormField';
import { useModalDialog } from './useModalDialog';

export const REJECT_REASON_MAX = 500;

export interface RejectPaymentDialogProps {
  /** The payment being rejected; null keeps the dialog closed. */
  payment: PendingPayment | null;
  onConfirm(payment: PendingPayment, reason: string): void;
  onCancel(): void;
}

export function RejectPaymentDialog({ payment, onConfirm, onCancel }: RejectPaymentDialogProps) {
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
      setError('Please give a reason for rejecting the payment');
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
          Reject payment
        </h2>
        <p id={msgId}>
          {payment
            ? `Reject the ${payment.planType === 'annual' ? 'annual' : 'monthly'} payment of ${payment.userEmail} (${formatBtc(payment.btcAmount)})? The subscription will not be activated.`
            : null}
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
          <Button type="submit" variant="danger">
            Reject Payment
          </Button>
        </div>
      </form>
    </dialog>
  );
}
