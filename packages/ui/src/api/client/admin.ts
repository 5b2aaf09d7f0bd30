/**
 * Admin calls: stats, runners, the approval queue, members (suspend, reinstate, history, erasure),
 * payments, the video library (edit, retry, delete, captions) and analytics.
 */

import type { StaffRole } from '../../access/staffRoles';
import type {
  AddedCaption,
  AdminRunners,
  AdminStats,
  AdminVideo,
  AdminVideoChanges,
  AdminVideoPage,
  AnalyticsAnswer,
  AnalyticsByPlan,
  AnalyticsPoint,
  DeletedCaption,
  DeletedVideo,
  MemberHistory,
  MemberListRow,
  PendingPayment,
  PendingPaymentsAnswer,
  PendingUser,
  RejectedPayment,
  RunnerTokenCreated,
  RunnerTokenRevoked,
  StaffInvitation,
  StaffList,
  StaffMember,
  StaffReads,
  StaffRemoved,
  UserDecision,
  VerifiedPayment,
  VideoAnalytics,
  VideoQuery,
} from '../types';
import type { Calls } from './session';

/** One page of a keyset-paged admin list. */
export interface ListPage<T> {
  items: T[];
  /** Give it back as `after` for the next page; null on the last page. */
  nextCursor: string | null;
  /** Every row of the list, not only this page's. */
  total: number;
}

/** A page of the payments queue, with what only the first page fills: `flagged` and the chain node's settings. */
export interface PendingPaymentsPage extends ListPage<PendingPayment> {
  flagged: PendingPayment[];
  chainNode: PendingPaymentsAnswer['chainNode'];
}

/** GET /admin/analytics answers every day of the window in `days`; the charts plot those points. */
export function toAnalyticsPoints(answer: AnalyticsAnswer): AnalyticsPoint[] {
  return answer.days;
}

export function adminCalls({ get, post, request }: Calls) {
  return {
    adminStats: () => get<AdminStats>('/admin/stats'),
    /** The transcode runner tokens (last contact, revoked) and the runners heard from in the last 15 minutes. */
    adminRunners: () => get<AdminRunners>('/admin/runners', { fallbackError: 'Failed to load the transcode runners' }),
    createRunnerToken: (name: string) =>
      post<RunnerTokenCreated>('/admin/runners/tokens', { name }, { fallbackError: 'Failed to make the runner token' }),
    revokeRunnerToken: (name: string) =>
      request<RunnerTokenRevoked>('DELETE', `/admin/runners/tokens/${encodeURIComponent(name)}`, {
        fallbackError: 'Failed to revoke the runner token',
      }),
    /** The creator's team (owner only): the staff and the invitations still open. */
    staffList: () => get<StaffList>('/admin/staff', { fallbackError: 'Failed to load the staff' }),
    inviteStaff: async (email: string, role: StaffRole): Promise<StaffInvitation> =>
      (
        await post<{ invitation: StaffInvitation }>(
          '/admin/staff/invitations',
          { email, role },
          { fallbackError: 'Failed to send the invitation' },
        )
      ).invitation,
    changeStaffRole: async (id: string, role: StaffRole): Promise<StaffMember> =>
      (
        await request<{ staff: StaffMember }>('PUT', `/admin/staff/${encodeURIComponent(id)}`, {
          body: { role },
          fallbackError: 'Failed to change the role',
        })
      ).staff,
    removeStaff: (id: string) =>
      request<StaffRemoved>('DELETE', `/admin/staff/${encodeURIComponent(id)}`, { fallbackError: 'Failed to remove the staff member' }),
    /** The staff's reads of personal data, newest first (owner only). */
    staffReads: (after?: string | null) =>
      get<StaffReads>('/admin/staff/reads', { query: { after: after ?? undefined }, fallbackError: 'Failed to load the record of reads' }),
    /** The first page of the approval queue (oldest first); `pendingUsersPage` pages on. */
    pendingUsers: async (): Promise<PendingUser[]> => (await get<{ users: PendingUser[] }>('/admin/users/pending')).users,
    /** One keyset page of the approval queue: pass the previous page's `nextCursor` as `after`. */
    pendingUsersPage: async (after?: string | null): Promise<ListPage<PendingUser>> => {
      const a = await get<{ users: PendingUser[]; nextCursor: string | null; total: number }>('/admin/users/pending', {
        query: { after: after ?? undefined },
      });
      return { items: a.users, nextCursor: a.nextCursor ?? null, total: a.total };
    },
    approveUser: (id: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/approve`, {}, { fallbackError: 'Failed to approve user' }),
    rejectUser: (id: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/reject`, {}, { fallbackError: 'Failed to reject user' }),
    /** Suspends an approved member (their sessions end); `reason` is required and recorded. */
    suspendUser: (id: string, reason: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/suspend`, { reason }, { fallbackError: 'Failed to suspend the member' }),
    reinstateUser: (id: string) =>
      post<UserDecision>(`/admin/users/${encodeURIComponent(id)}/reinstate`, {}, { fallbackError: 'Failed to reinstate the member' }),
    findMembers: async (q: string): Promise<MemberListRow[]> =>
      (await get<{ users: MemberListRow[] }>('/admin/users', { query: { q }, fallbackError: 'Failed to load members' })).users,
    memberHistory: (id: string) =>
      get<MemberHistory>(`/admin/users/${encodeURIComponent(id)}/history`, { fallbackError: 'Failed to load the member' }),
    eraseMember: (id: string, reason: string) =>
      post<{ erased: boolean }>(
        `/admin/users/${encodeURIComponent(id)}/erase`,
        { reason },
        { fallbackError: 'Failed to erase the member' },
      ),
    /** The first page of submitted payments (oldest first); `pendingPaymentsPage` pages on. */
    pendingPayments: async (): Promise<PendingPayment[]> =>
      (await get<{ payments: PendingPayment[]; count: number }>('/admin/pending-payments')).payments,
    /** One keyset page of submitted payments: pass the previous page's `nextCursor` as `after`. */
    pendingPaymentsPage: async (after?: string | null): Promise<PendingPaymentsPage> => {
      const a = await get<PendingPaymentsAnswer>('/admin/pending-payments', { query: { after: after ?? undefined } });
      return { items: a.payments, nextCursor: a.nextCursor ?? null, total: a.count, flagged: a.flagged, chainNode: a.chainNode };
    },
    /** Verifies; `overrideReason` when the chain does not show the payment confirmed (kept in the event). */
    verifyPayment: (id: string, overrideReason?: string) =>
      post<VerifiedPayment>(
        `/admin/payments/${encodeURIComponent(id)}/verify`,
        overrideReason === undefined ? {} : { override: { reason: overrideReason } },
        { fallbackError: 'Failed to verify payment' },
      ),
    rejectPayment: (id: string, reason: string) =>
      post<RejectedPayment>(`/admin/payments/${encodeURIComponent(id)}/reject`, { reason }, { fallbackError: 'Failed to reject payment' }),
    adminVideos: (query: VideoQuery = {}) =>
      get<AdminVideoPage>('/admin/videos', { query: { ...query }, fallbackError: 'Failed to load videos' }),
    updateVideo: (id: string, changes: AdminVideoChanges) =>
      request<AdminVideo>('PUT', `/admin/videos/${encodeURIComponent(id)}`, { body: changes, fallbackError: 'Failed to update video' }),
    retryTranscode: (id: string) =>
      post<{ videoId: string; status: 'queued' }>(
        `/admin/videos/${encodeURIComponent(id)}/transcode/retry`,
        {},
        {
          fallbackError: 'Failed to retry the transcode',
        },
      ),
    deleteVideo: (id: string) =>
      request<DeletedVideo>('DELETE', `/admin/videos/${encodeURIComponent(id)}`, {
        fallbackError: 'Failed to delete video',
      }),
    /** Adds a caption track (.vtt or .srt); the same language replaces it (docs/videos.md#captions). */
    addCaption: (id: string, file: Blob, language: string, label?: string, fileName = 'captions.vtt') => {
      const form = new FormData();
      form.append('language', language);
      if (label) form.append('label', label);
      form.append('file', file, fileName);
      return request<AddedCaption>('POST', `/admin/videos/${encodeURIComponent(id)}/captions`, {
        body: form,
        fallbackError: 'Failed to add captions',
      });
    },
    removeCaption: (id: string, language: string) =>
      request<DeletedCaption>('DELETE', `/admin/videos/${encodeURIComponent(id)}/captions/${encodeURIComponent(language)}`, {
        fallbackError: 'Failed to remove captions',
      }),
    analytics: async (): Promise<AnalyticsPoint[]> => toAnalyticsPoints(await get<AnalyticsAnswer>('/admin/analytics')),
    /** Per plan and UTC calendar month, the last `months` months. */
    analyticsByPlan: (months: number) =>
      get<AnalyticsByPlan>('/admin/analytics', { query: { months }, fallbackError: 'Failed to load the figures per plan' }),
    /** Views and watch time per video from `from` to `to` (UTC days, both included). */
    videoAnalytics: (from: string, to: string) =>
      get<VideoAnalytics>('/admin/analytics/videos', { query: { from, to }, fallbackError: 'Failed to load the figures per video' }),
  };
}
