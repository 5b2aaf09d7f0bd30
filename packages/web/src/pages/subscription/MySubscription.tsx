/**
 * The My Subscription tab: badge (precedence of spec §4), dates, amount, Cancel/Reactivate,
 * warnings, and the member's payments waiting for an admin with what the Bitcoin network received.
 */
import {
  Alert,
  Button,
  ConfirmDialog,
  formatBtc,
  type MemberPendingPayment,
  QrCode,
  Spinner,
  StatusBadge,
  type SubscriptionIntent,
} from '@members/ui';
import { formatDate, formatUsd, subscriptionAction, subscriptionBadge } from '@members/ui/format';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../app/api';
import { billingKeys, identityKeys, queries } from '../../app/queries';

export function MySubscription({ onShowPlans, onPayRenewal }: { onShowPlans(): void; onPayRenewal(renewal: SubscriptionIntent): void }) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const sub = useQuery(queries.billing.subscription());
  const after = () => {
    qc.invalidateQueries({ queryKey: billingKeys.subscription });
    qc.invalidateQueries({ queryKey: identityKeys.profile });
  };
  const cancel = useMutation({
    mutationFn: () => api.cancelSubscription(),
    onSuccess: () =>
      setNotice({
        tone: 'success',
        text: 'Subscription canceled successfully. You will retain access until the end of your current billing period.',
      }),
    onError: () => setNotice({ tone: 'error', text: 'Failed to cancel subscription' }),
    onSettled: after,
  });
  const reactivate = useMutation({
    mutationFn: (id: string) => api.reactivateSubscription(id),
    onSuccess: () => setNotice({ tone: 'success', text: 'Subscription reactivated successfully.' }),
    onError: () => setNotice({ tone: 'error', text: 'Failed to reactivate subscription' }),
    onSettled: after,
  });

  const pending = useQuery(queries.billing.myPendingPayments());
  if (sub.isPending) return <Spinner label="Loading subscription..." />;
  if (sub.isError) return <Alert>{'Failed to load subscription'}</Alert>;

  const s = sub.data;
  return (
    <div className="card my-subscription">
      {notice && (
        <Alert tone={notice.tone} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {(pending.data ?? []).map((p) => (
        <PendingPaymentNotice key={p.paymentId} payment={p} />
      ))}
      {!s ? (
        <div className="center">
          <h2>No active subscription</h2>
          <p className="muted">Choose a plan to unlock premium videos.</p>
          <Button onClick={onShowPlans}>View Plans</Button>
        </div>
      ) : (
        <SubscriptionDetails
          sub={s}
          busy={cancel.isPending || reactivate.isPending}
          onCancel={() => setConfirming(true)}
          onReactivate={() => reactivate.mutate(s.id)}
          onPayRenewal={onPayRenewal}
        />
      )}
      <ConfirmDialog
        open={confirming}
        title="Cancel subscription"
        message="Are you sure you want to cancel your subscription? You will retain access until the end of your current billing period."
        confirmLabel="Cancel Subscription"
        cancelLabel="Keep Subscription"
        danger
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          cancel.mutate();
        }}
      />
    </div>
  );
}

function SubscriptionDetails({
  sub,
  busy,
  onCancel,
  onReactivate,
  onPayRenewal,
}: {
  sub: NonNullable<Awaited<ReturnType<typeof api.getSubscription>>>;
  busy: boolean;
  onCancel(): void;
  onReactivate(): void;
  onPayRenewal(renewal: SubscriptionIntent): void;
}) {
  // A renewal request is open (it opens a few days before the end, unless set to cancel): what to pay, by when.
  const renewal = sub.cancelAtPeriodEnd ? null : (sub.renewal ?? null);
  const badge = subscriptionBadge(sub);
  const action = subscriptionAction(sub);
  return (
    <>
      <div className="card-header">
        <h2>{sub.planType === 'annual' ? 'Annual Premium' : 'Monthly Premium'}</h2>
        <StatusBadge tone={badge.tone}>
          <span data-testid="subscription-status">{badge.label}</span>
        </StatusBadge>
      </div>
      {sub.status === 'past_due' && (
        <Alert tone="warning">Your payment is overdue. Please renew your subscription to keep your access.</Alert>
      )}
      {sub.cancelAtPeriodEnd && (
        <Alert tone="info">
          Your subscription will not renew. You keep access until the end of the current period, {formatDate(sub.currentPeriodEnd)}.
        </Alert>
      )}
      <dl className="details">
        <dt>Plan</dt>
        <dd>{sub.planType === 'annual' ? 'Annual' : 'Monthly'}</dd>
        <dt>Amount</dt>
        <dd>{renewal ? formatBtc(renewal.btcAmount) : formatUsd(sub.amount)}</dd>
        <dt>Current period started</dt>
        <dd>{formatDate(sub.currentPeriodStart)}</dd>
        <dt>{sub.cancelAtPeriodEnd ? 'Access ends' : renewal ? 'Renewal due on' : 'Current period ends'}</dt>
        <dd>{formatDate(renewal ? renewal.dueAt : sub.currentPeriodEnd)}</dd>
      </dl>
      {renewal && renewal.status === 'requested' && renewal.address && (
        <div className="renewal" data-testid="renewal">
          <QrCode
            value={renewal.bip21Uri ?? renewal.address}
            label={`QR code: pay ${formatBtc(renewal.btcAmount)} to ${renewal.address}`}
          />
          <p>
            Send {formatBtc(renewal.btcAmount)} to <span className="mono">{renewal.address}</span> by {formatDate(renewal.dueAt)}. The new
            period starts where this one ends, so paying early loses nothing.
          </p>
          <Button onClick={() => onPayRenewal(renewal)}>Pay Renewal</Button>
        </div>
      )}
      {!renewal && !sub.cancelAtPeriodEnd && sub.status === 'active' && (
        <p className="muted">Nothing is charged automatically: a few days before the period ends we e-mail you the renewal payment.</p>
      )}
      <div className="button-row">
        {action === 'cancel' && (
          <Button variant="danger" busy={busy} busyLabel="Canceling..." onClick={onCancel}>
            Cancel Subscription
          </Button>
        )}
        {action === 'reactivate' && (
          <Button busy={busy} busyLabel="Reactivating..." onClick={onReactivate}>
            Reactivate Subscription
          </Button>
        )}
      </div>
    </>
  );
}

/** One payment waiting for an admin: received on the Bitcoin network (and how far confirmed), or only submitted. */
function PendingPaymentNotice({ payment: p }: { payment: MemberPendingPayment }) {
  const what = p.planType === 'annual' ? 'your annual plan' : p.planType === 'custom' ? 'your custom video request' : 'your monthly plan';
  const r = p.received;
  const verifying = 'We verify payments manually within 24 hours, and your subscription activates as soon as it is verified.';
  const text = !r
    ? `Payment submitted on ${formatDate(p.submittedDate)} for ${what} (${formatBtc(p.btcAmount)}). ${verifying}`
    : r.status === 'underpaid'
      ? `Payment received: ${formatBtc(r.btcAmount)} of the ${formatBtc(p.btcAmount)} asked for ${what}, less than the price. Please contact support about the difference.`
      : r.status === 'confirmed'
        ? `Payment received: ${formatBtc(r.btcAmount)} for ${what}, confirmed on the Bitcoin network. ${verifying}`
        : `Payment received: ${formatBtc(r.btcAmount)} for ${what}, waiting for confirmation on the Bitcoin network (${r.confirmations} so far). ${verifying}`;
  return (
    <Alert tone={r?.status === 'underpaid' ? 'warning' : 'info'}>
      <span data-testid="pending-payment">{text}</span>
    </Alert>
  );
}
