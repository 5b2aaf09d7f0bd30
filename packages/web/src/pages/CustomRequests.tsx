/**
 * `/custom-requests`: the annual plan's "Custom video requests" (issue 30, docs/chat.md). An
 * annual member describes the video they want; the team quotes a BTC price (or declines with a
 * reason); "Pay" opens a payment to a fresh address and shows where to send how much; once an
 * admin verified it and delivered the video, a link leads to it (visible to this member only).
 * Others see why they cannot ask (the shared `customRequestAccess` words) and keep their list.
 */
import {
  Alert,
  Button,
  CUSTOM_REQUEST_MAX_LENGTH,
  type CustomRequest,
  CustomRequestStatus,
  QrCode,
  Spinner,
  TextAreaField,
} from '@members/ui';
import { customRequestAccess } from '@members/ui/access';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { api } from '../app/api';
import { customRequestKeys, queries } from '../app/queries';
import { useSession } from '../app/session';

function PayRequest({ request }: { request: CustomRequest }) {
  const qc = useQueryClient();
  const [hash, setHash] = useState('');
  const pay = useMutation({
    mutationFn: () => api.payCustomRequest(request.id, hash.trim() || undefined),
    onSuccess: () => qc.invalidateQueries({ queryKey: customRequestKeys.own }),
  });
  const payment = request.payment && request.payment.status !== 'rejected' ? request.payment : null;
  if (payment)
    return (
      <div className="custom-request-payment" data-testid="custom-request-payment">
        <p>
          Send exactly <strong>{payment.btcAmount} BTC</strong> to <code className="break-all">{payment.address}</code>
        </p>
        {payment.bip21Uri && (
          <QrCode value={payment.bip21Uri} label={`QR code: pay ${payment.btcAmount} BTC to ${payment.address}`} size={160} />
        )}
        <p className="muted">
          {payment.status === 'verified'
            ? 'Payment verified.'
            : 'An admin verifies the payment on the blockchain, usually within 24 hours.'}
        </p>
      </div>
    );
  return (
    <form
      className="inline-form"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        pay.mutate();
      }}
    >
      {pay.error && <Alert>{pay.error.message}</Alert>}
      <label>
        Transaction hash (optional) <input className="input" value={hash} onChange={(e) => setHash(e.target.value)} maxLength={64} />
      </label>
      <Button type="submit" size="sm" busy={pay.isPending} busyLabel="Opening payment...">
        Pay {request.btcAmount} BTC
      </Button>
    </form>
  );
}

export default function CustomRequests() {
  const { loggedIn, user } = useSession();
  const qc = useQueryClient();
  const [description, setDescription] = useState('');
  const requests = useQuery({ ...queries.customRequests.own(), enabled: loggedIn });
  const subscription = useQuery({ ...queries.billing.subscription(), enabled: loggedIn });
  const ask = useMutation({
    mutationFn: () => api.requestCustomVideo(description),
    onSuccess: () => {
      setDescription('');
      return qc.invalidateQueries({ queryKey: customRequestKeys.own });
    },
  });
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  const access = customRequestAccess(user, subscription.data?.planType ?? null);

  return (
    <div className="container narrow section custom-requests-page">
      <h1>Custom video requests</h1>
      {subscription.isLoading ? (
        <Spinner label="Loading..." />
      ) : access.allowed ? (
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            ask.mutate();
          }}
        >
          {ask.error && <Alert>{ask.error.message}</Alert>}
          {ask.isSuccess && <Alert tone="success">Request sent. The team will quote a price.</Alert>}
          <TextAreaField
            label="Describe the video you would like"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={CUSTOM_REQUEST_MAX_LENGTH}
            rows={4}
            required
          />
          <Button type="submit" busy={ask.isPending} busyLabel="Sending...">
            Send request
          </Button>
        </form>
      ) : (
        <Alert tone="info">
          {access.message} <Link to="/subscription">See the plans</Link>
        </Alert>
      )}
      <h2>Your requests</h2>
      {requests.isLoading ? (
        <Spinner label="Loading requests..." />
      ) : (requests.data ?? []).length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <ul className="custom-request-list">
          {(requests.data ?? []).map((r) => (
            <li key={r.id} className="custom-request" data-testid={`custom-request-${r.id}`}>
              <div className="custom-request-head">
                <CustomRequestStatus request={r} /> <span className="muted">{new Date(r.requestedAt).toLocaleString()}</span>
              </div>
              <p className="custom-request-description" dir="auto">
                {r.description}
              </p>
              {r.status === 'quoted' && <PayRequest request={r} />}
              {r.status === 'paid' && <p>Paid. The team is preparing your video.</p>}
              {r.status === 'declined' && (
                <p className="muted">
                  Declined: <bdi>{r.declineReason}</bdi>
                </p>
              )}
              {r.status === 'delivered' && r.videoId && (
                <p>
                  <Link to={`/videos/${encodeURIComponent(r.videoId)}`}>Watch your video</Link>
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
