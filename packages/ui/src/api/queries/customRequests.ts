/** Custom request queries: the keys and fetchers of the member's requests and the admins' queue. */
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../client';

export const customRequestKeys = {
  own: ['custom-requests'] as const,
  admin: ['admin', 'custom-requests'] as const,
};

export function customRequestQueries(api: ApiClient) {
  return {
    own: () => queryOptions({ queryKey: customRequestKeys.own, queryFn: () => api.customRequests() }),
    admin: () => queryOptions({ queryKey: customRequestKeys.admin, queryFn: () => api.adminCustomRequests() }),
  };
}
