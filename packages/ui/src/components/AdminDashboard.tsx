/**
 * The admin dashboard composition shared by the web /admin page and the desktop app: stat cards,
 * upload form, video library, transcode runners, pending users, pending payments (verify or reject with a reason),
 * analytics and the creator's numbers (per plan and month, per video), over the API client from context
 * (or the `client` prop). Each section shows only if the staff member's role has its permission
 * (@members/ui/staffRoles; the server refuses the rest anyway). Needs a QueryClientProvider above it.
 */
import { type InfiniteData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, Suspense, useState } from 'react';
import { can, type StaffPermission, type StaffRole } from '../access/staffRoles';
import type { ApiClient, ListPage } from '../api/client';
import { adminKeys, adminQueries } from '../api/queries';
import type { AdminVideo, PendingPayment, PendingUser } from '../api/types';
import { errorText } from '../format/errorText';
import { chainEvidence } from '../money/chainEvidence';
import { useOptionalApiClient } from './ApiContext';
import { Button } from './Button';
import { Card } from './Card';
import { ConfirmDialog } from './ConfirmDialog';
import { CreatorNumbers } from './CreatorNumbers';
import { Alert, Spinner } from './Feedback';
import { lazyScreen } from './lazyScreen';
import { MemberSearch } from './MemberSearch';
import { RejectPaymentDialog, VerifyOverrideDialog } from './PaymentReasonDialog';
import { PendingPaymentsTable } from './PendingPaymentsTable';
import { PendingUsersTable } from './PendingUsersTable';
import { StatCards } from './StatCards';
import { TranscodeRunners } from './TranscodeRunners';
import { UploadVideoForm } from './UploadVideoForm';
import { VideoLibrary } from './VideoLibrary';

const AnalyticsCharts = /* @__PURE__ */ lazyScreen(() => import('./AnalyticsCharts'));

export interface AdminDashboardProps {
  /** Defaults to the client from <ApiClientProvider>. */
  client?: ApiClient;
  /** The three configured model names for the upload form. */
  models: string[];
  /** Block explorer '{txid}' template. */
  explorerTemplate?: string;
  /** Links to a member's page (history, erasure); with it the dashboard also shows the member search. */
  renderMemberLink?: (member: { id: string; email: string }) => ReactNode;
  /** Plays a video as the admin, whatever its level or state (web: a link to its player page). */
  renderVideoPreview?: (video: AdminVideo) => ReactNode;
  /** The signed-in staff member's role (`user.staffRole`): what the dashboard shows. Default: owner. */
  staffRole?: StaffRole | null;
}

type Notice = { tone: 'success' | 'error'; text: string } | null;

export function AdminDashboard({ client, models, explorerTemplate, renderMemberLink, renderVideoPreview, staffRole }: AdminDashboardProps) {
  const may = (permission: StaffPermission) => can(staffRole ?? 'owner', permission);
  const fromContext = useOptionalApiClient();
  const api = client ?? fromContext;
  if (!api) throw new Error('AdminDashboard needs a client prop or an <ApiClientProvider>');
  const qc = useQueryClient();
  const [notice, setNotice] = useState<Notice>(null);
  const [busyUser, setBusyUser] = useState<string | null>(null);
  const [busyPayment, setBusyPayment] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState<PendingUser | null>(null);
  const [rejectingPayment, setRejectingPayment] = useState<PendingPayment | null>(null);
  const [overriding, setOverriding] = useState<PendingPayment | null>(null);

  const queries = adminQueries(api);
  const stats = useQuery({ ...queries.stats(), enabled: may('analytics') });
  // The queues are keyset-paged on the server: the first page loads, 'Load more' fetches the next.
  const users = useInfiniteQuery({ ...queries.pendingUsers(), enabled: may('members.review') });
  const payments = useInfiniteQuery({ ...queries.pendingPayments(), enabled: may('payments') });
  const userRows = users.data?.pages.flatMap((p) => p.items) ?? [];
  const paymentRows = payments.data?.pages.flatMap((p) => p.items) ?? [];
  const firstPayments = payments.data?.pages[0];
  const chainNode = firstPayments?.chainNode;
  const flagged = firstPayments?.flagged ?? [];
  const analytics = useQuery({ ...queries.analytics(), enabled: may('analytics') });

  const refreshAll = () => qc.invalidateQueries({ queryKey: adminKeys.all });

  const approve = useMutation({
    mutationFn: (u: PendingUser) => api.approveUser(u.id),
    onMutate: (u) => setBusyUser(u.id),
    onSuccess: () => setNotice({ tone: 'success', text: 'User approved successfully!' }),
    onError: () => setNotice({ tone: 'error', text: 'Failed to approve user' }),
    onSettled: () => {
      setBusyUser(null);
      refreshAll();
    },
  });
  const reject = useMutation({
    mutationFn: (u: PendingUser) => api.rejectUser(u.id),
    onMutate: (u) => setBusyUser(u.id),
    onSuccess: () => setNotice({ tone: 'success', text: 'User rejected successfully' }),
    onError: () => setNotice({ tone: 'error', text: 'Failed to reject user' }),
    onSettled: () => {
      setBusyUser(null);
      refreshAll();
    },
  });
  const verify = useMutation({
    mutationFn: ({ payment, override }: { payment: PendingPayment; override?: string }) => api.verifyPayment(payment.id, override),
    onMutate: ({ payment }) => setBusyPayment(payment.id),
    onSuccess: () => setNotice({ tone: 'success', text: 'Payment verified and subscription activated!' }),
    // The server's refusal names what the chain shows (a payment.chain_* 409), which the admin needs more than "failed".
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to verify payment') }),
    onSettled: () => {
      setBusyPayment(null);
      refreshAll();
    },
  });

  const rejectPayment = useMutation({
    mutationFn: ({ payment, reason }: { payment: PendingPayment; reason: string }) => api.rejectPayment(payment.id, reason),
    onMutate: ({ payment }) => setBusyPayment(payment.id),
    onSuccess: (_r, { payment }) => {
      qc.setQueryData<InfiniteData<ListPage<PendingPayment>, string | null>>(adminKeys.pendingPayments, (old) =>
        old ? { ...old, pages: old.pages.map((pg) => ({ ...pg, items: pg.items.filter((p) => p.id !== payment.id) })) } : old,
      );
      setNotice({ tone: 'success', text: 'Payment rejected' });
    },
    onError: (err) => setNotice({ tone: 'error', text: errorText(err, 'Failed to reject payment') }),
    onSettled: () => {
      setBusyPayment(null);
      refreshAll();
    },
  });

  if (may('analytics') && stats.isPending) return <Spinner label="Loading admin dashboard..." />;

  return (
    <div className="admin-dashboard">
      {notice && (
        <Alert tone={notice.tone} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Alert>
      )}
      {stats.error && <Alert>{(stats.error as Error).message}</Alert>}
      {stats.data && <StatCards stats={stats.data} />}

      {may('videos') && (
        <>
          <UploadVideoForm
            models={models}
            onUpload={(payload, onProgress) => api.uploadVideo(payload, onProgress)}
            onUploaded={refreshAll}
          />
          <VideoLibrary api={api} renderPreview={renderVideoPreview} />
        </>
      )}

      {may('runners') && <TranscodeRunners api={api} />}

      {may('members.review') && (
        <Card className="admin-section">
          {users.error ? <Alert>{(users.error as Error).message}</Alert> : null}
          {users.isPending ? (
            <Spinner label="Loading pending users..." />
          ) : (
            <PendingUsersTable
              users={userRows}
              total={users.data?.pages[0]?.total}
              busyId={busyUser}
              onApprove={(u) => approve.mutate(u)}
              onReject={(u) => setRejecting(u)}
              renderMemberLink={renderMemberLink}
            />
          )}
          {users.hasNextPage ? (
            <Button variant="secondary" disabled={users.isFetchingNextPage} onClick={() => void users.fetchNextPage()}>
              {users.isFetchingNextPage ? 'Loading...' : 'Load more'}
            </Button>
          ) : null}
        </Card>
      )}

      {renderMemberLink && may('members.search') && (
        <Card className="admin-section">
          <MemberSearch api={api} renderMemberLink={renderMemberLink} />
        </Card>
      )}

      {may('payments') && (
        <Card className="admin-section">
          {payments.error ? <Alert>{(payments.error as Error).message}</Alert> : null}
          {payments.isPending ? (
            <Spinner label="Loading pending payments..." />
          ) : (
            <PendingPaymentsTable
              payments={paymentRows}
              total={payments.data?.pages[0]?.total}
              busyId={busyPayment}
              explorerTemplate={explorerTemplate}
              chainNode={chainNode}
              // What the chain does not show confirmed needs the admin's reason (kept in the event).
              onVerify={(p) => (chainEvidence(p, chainNode).blocker ? setOverriding(p) : verify.mutate({ payment: p }))}
              onReject={(p) => setRejectingPayment(p)}
            />
          )}
          {payments.hasNextPage ? (
            <Button variant="secondary" disabled={payments.isFetchingNextPage} onClick={() => void payments.fetchNextPage()}>
              {payments.isFetchingNextPage ? 'Loading...' : 'Load more'}
            </Button>
          ) : null}
        </Card>
      )}

      {flagged.length > 0 && (
        <Card className="admin-section">
          <Alert>
            {flagged.length === 1 ? 'A verified payment' : `${flagged.length} verified payments`} left the chain (a reorg or a double
            spend). Nothing was revoked: check each with the member before you decide.
          </Alert>
          <PendingPaymentsTable
            caption={`Verified payments that left the chain (${flagged.length})`}
            payments={flagged}
            explorerTemplate={explorerTemplate}
            chainNode={chainNode}
          />
        </Card>
      )}

      {may('analytics') && (
        <Card title="Analytics" className="admin-section">
          {analytics.error ? (
            <Alert>{(analytics.error as Error).message}</Alert>
          ) : analytics.isPending ? (
            <Spinner label="Loading analytics..." />
          ) : (
            <Suspense fallback={<Spinner label="Loading charts..." />}>
              <AnalyticsCharts points={analytics.data ?? []} />
            </Suspense>
          )}
        </Card>
      )}

      {may('analytics') && <CreatorNumbers client={api} />}

      <ConfirmDialog
        open={rejecting !== null}
        title="Reject user"
        message="Are you sure you want to reject this user? This action cannot be undone."
        confirmLabel="Reject"
        danger
        onCancel={() => setRejecting(null)}
        onConfirm={() => {
          const u = rejecting;
          setRejecting(null);
          if (u) reject.mutate(u);
        }}
      />
      <VerifyOverrideDialog
        payment={overriding}
        blocker={overriding ? chainEvidence(overriding, chainNode).blocker : null}
        onCancel={() => setOverriding(null)}
        onConfirm={(payment, reason) => {
          setOverriding(null);
          verify.mutate({ payment, override: reason });
        }}
      />
      <RejectPaymentDialog
        payment={rejectingPayment}
        onCancel={() => setRejectingPayment(null)}
        onConfirm={(payment, reason) => {
          setRejectingPayment(null);
          rejectPayment.mutate({ payment, reason });
        }}
      />
    </div>
  );
}

/** 'Access Denied' for signed-in users who are not admins. */
export function AdminAccessDenied({ email, role }: { email?: string; role?: string }) {
  return (
    <div className="center-page">
      <h1>Access Denied</h1>
      <p>You don't have permission to access this page.</p>
      <p className="muted">
        Logged in as: {email ?? 'unknown'} (Role: {role ?? 'member'})
      </p>
    </div>
  );
}
