/**
 * The admins' custom video requests queue (issue 30, annual plan), shared by the web /admin page
 * and the desktop console: paid requests (to deliver) first, then new and quoted ones, then the
 * closed ones, as the API orders them. An admin quotes a BTC price or declines with a reason; the
 * member's payment is verified in Pending payments; a paid request is delivered by naming a video
 * (upload it unpublished: only the requester will see it). Needs a QueryClientProvider above it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiClient } from '../api/client';
import { customRequestKeys, customRequestQueries } from '../api/queries';
import type { AdminCustomRequest, CustomRequest } from '../api/types';
import { useOptionalApiClient } from './ApiContext';
import { Button } from './Button';
import { Card } from './Card';
import { Alert, EmptyState, Spinner } from './Feedback';
import { StatusBadge } from './StatusBadge';

const TONE: Record<CustomRequest['status'], 'neutral' | 'info' | 'warning' | 'success' | 'danger'> = {
  requested: 'info',
  quoted: 'warning',
  paid: 'success',
  delivered: 'neutral',
  declined: 'danger',
};

/** A request's status as a badge ("payment sent" while a quoted request's payment waits for an admin). */
export function CustomRequestStatus({ request }: { request: CustomRequest }) {
  const waiting = request.status === 'quoted' && request.payment && request.payment.status === 'submitted';
  return <StatusBadge tone={TONE[request.status]}>{waiting ? 'payment sent' : request.status}</StatusBadge>;
}

function RequestActions({ request, api }: { request: AdminCustomRequest; api: ApiClient }) {
  const qc = useQueryClient();
  const [amount, setAmount] = useState(request.btcAmount ?? '');
  const [reason, setReason] = useState('');
  const [videoId, setVideoId] = useState('');
  const act = useMutation({
    mutationFn: (run: () => Promise<unknown>) => run(),
    onSuccess: () => qc.invalidateQueries({ queryKey: customRequestKeys.admin }),
  });
  const submit = (run: () => Promise<unknown>) => (e: FormEvent) => {
    e.preventDefault();
    act.mutate(run);
  };
  const paymentOpen = request.payment !== null && request.payment.status !== 'rejected';
  const open = request.status === 'requested' || (request.status === 'quoted' && !paymentOpen);
  return (
    <div className="custom-request-actions">
      {act.error && <Alert>{act.error.message}</Alert>}
      {open && (
        <>
          <form className="inline-form" onSubmit={submit(() => api.quoteCustomRequest(request.id, amount))}>
            <label>
              Price (BTC){' '}
              <input className="input" value={amount} onChange={(e) => setAmount(e.target.value)} placeholder="0.002" required />
            </label>
            <Button type="submit" size="sm" busy={act.isPending}>
              Quote
            </Button>
          </form>
          <form className="inline-form" onSubmit={submit(() => api.declineCustomRequest(request.id, reason))}>
            <label>
              Reason <input className="input" value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={500} />
            </label>
            <Button type="submit" size="sm" variant="danger" busy={act.isPending}>
              Decline
            </Button>
          </form>
        </>
      )}
      {request.status === 'quoted' && paymentOpen && <p className="muted">Payment {request.payment?.id}: verify it in Pending payments.</p>}
      {request.status === 'paid' && (
        <form className="inline-form" onSubmit={submit(() => api.deliverCustomRequest(request.id, videoId.trim()))}>
          <label>
            Video id <input className="input" value={videoId} onChange={(e) => setVideoId(e.target.value)} required />
          </label>
          <Button type="submit" size="sm" variant="success" busy={act.isPending}>
            Deliver
          </Button>
        </form>
      )}
    </div>
  );
}

export function CustomRequestsQueue({ client }: { client?: ApiClient }) {
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('CustomRequestsQueue needs a client prop or an <ApiClientProvider>');
  const list = useQuery({ ...customRequestQueries(api).admin(), refetchInterval: 60_000 });
  return (
    <Card title="Custom requests" className="custom-requests-queue">
      {list.isLoading ? (
        <Spinner label="Loading requests..." />
      ) : list.error ? (
        <Alert>{list.error.message}</Alert>
      ) : (list.data ?? []).length === 0 ? (
        <EmptyState>No custom video requests yet.</EmptyState>
      ) : (
        <ul className="custom-request-list">
          {(list.data ?? []).map((r) => (
            <li key={r.id} className="custom-request" data-testid={`custom-request-${r.id}`}>
              <div className="custom-request-head">
                <strong dir="auto">{r.displayName || r.userId}</strong> <CustomRequestStatus request={r} />{' '}
                {r.btcAmount && <span className="muted">{r.btcAmount} BTC</span>}{' '}
                <span className="muted">{new Date(r.requestedAt).toLocaleString()}</span>
              </div>
              {/* Plain text, never HTML. */}
              <p className="custom-request-description" dir="auto">
                {r.description}
              </p>
              {r.declineReason && (
                <p className="muted">
                  Declined: <bdi>{r.declineReason}</bdi>
                </p>
              )}
              {r.videoId && <p className="muted">Delivered video {r.videoId}</p>}
              <RequestActions request={r} api={api} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
