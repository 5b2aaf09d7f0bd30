/**
 * Admin queries: the keys and fetchers of the dashboard (stats, the keyset-paged queues,
 * analytics), the video library, the runners, the member search and a member's history. Every key
 * starts with 'admin': `adminKeys.all` refreshes them all.
 */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { ApiClient, ListPage } from '../client';

export const adminKeys = {
  all: ['admin'] as const,
  stats: ['admin', 'stats'] as const,
  pendingUsers: ['admin', 'pendingUsers'] as const,
  pendingPayments: ['admin', 'pendingPayments'] as const,
  analytics: ['admin', 'analytics'] as const,
  analyticsByPlan: (months: number) => ['admin', 'analytics', 'byPlan', months] as const,
  videoAnalytics: (from: string, to: string) => ['admin', 'analytics', 'videos', from, to] as const,
  /** Every page of the video library. */
  videos: ['admin', 'videos'] as const,
  videoPage: (page: number, pageSize: number) => ['admin', 'videos', page, pageSize] as const,
  runners: ['admin', 'runners'] as const,
  staff: ['admin', 'staff'] as const,
  staffReads: ['admin', 'staff', 'reads'] as const,
  members: (q: string) => ['admin', 'members', q] as const,
  member: (id: string) => ['admin', 'member', id] as const,
};

/** A keyset-paged list: the first page loads, each next one from the previous page's cursor. */
function keysetPages<P extends ListPage<unknown>>(queryKey: readonly unknown[], page: (after: string | null) => Promise<P>) {
  return infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => page(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last: P) => last.nextCursor,
  });
}

export function adminQueries(api: ApiClient) {
  return {
    stats: () => queryOptions({ queryKey: adminKeys.stats, queryFn: () => api.adminStats() }),
    /** The approval queue, one keyset page at a time ('Load more' fetches the next). */
    pendingUsers: () => keysetPages(adminKeys.pendingUsers, api.pendingUsersPage),
    pendingPayments: () => keysetPages(adminKeys.pendingPayments, api.pendingPaymentsPage),
    analytics: () => queryOptions({ queryKey: adminKeys.analytics, queryFn: () => api.analytics() }),
    analyticsByPlan: (months: number) =>
      queryOptions({ queryKey: adminKeys.analyticsByPlan(months), queryFn: () => api.analyticsByPlan(months) }),
    videoAnalytics: (from: string, to: string) =>
      queryOptions({ queryKey: adminKeys.videoAnalytics(from, to), queryFn: () => api.videoAnalytics(from, to) }),
    videoPage: (page: number, pageSize: number) =>
      queryOptions({ queryKey: adminKeys.videoPage(page, pageSize), queryFn: () => api.adminVideos({ page, pageSize }) }),
    runners: () => queryOptions({ queryKey: adminKeys.runners, queryFn: () => api.adminRunners() }),
    staff: () => queryOptions({ queryKey: adminKeys.staff, queryFn: () => api.staffList() }),
    staffReads: () => queryOptions({ queryKey: adminKeys.staffReads, queryFn: () => api.staffReads() }),
    members: (q: string) => queryOptions({ queryKey: adminKeys.members(q), queryFn: () => api.findMembers(q) }),
    member: (id: string) => queryOptions({ queryKey: adminKeys.member(id), queryFn: () => api.memberHistory(id) }),
  };
}
