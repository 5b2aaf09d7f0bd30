/** Custom video request calls (annual plan, docs/chat.md): the member's requests and the admins' queue. */
import type { AdminCustomRequest, CustomRequest, CustomRequestPayment } from '../types';
import type { Calls } from './session';

export function customRequestCalls({ get, post }: Calls) {
  return {
    customRequests: async (): Promise<CustomRequest[]> => (await get<{ requests: CustomRequest[] }>('/custom-requests')).requests,
    requestCustomVideo: async (description: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          '/custom-requests',
          { description },
          { redirectOn403: false, fallbackError: 'Could not send the request' },
        )
      ).request,
    payCustomRequest: (id: string, transactionHash?: string) =>
      post<CustomRequestPayment>(`/custom-requests/${encodeURIComponent(id)}/pay`, transactionHash ? { transactionHash } : {}, {
        redirectOn403: false,
        fallbackError: 'Could not open the payment',
      }),
    adminCustomRequests: async (): Promise<AdminCustomRequest[]> =>
      (await get<{ requests: AdminCustomRequest[] }>('/admin/custom-requests')).requests,
    quoteCustomRequest: async (id: string, btcAmount: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          `/admin/custom-requests/${encodeURIComponent(id)}/quote`,
          { btcAmount },
          { fallbackError: 'Could not quote' },
        )
      ).request,
    declineCustomRequest: async (id: string, reason: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          `/admin/custom-requests/${encodeURIComponent(id)}/decline`,
          { reason },
          { fallbackError: 'Could not decline' },
        )
      ).request,
    deliverCustomRequest: async (id: string, videoId: string): Promise<CustomRequest> =>
      (
        await post<{ request: CustomRequest }>(
          `/admin/custom-requests/${encodeURIComponent(id)}/deliver`,
          { videoId },
          { fallbackError: 'Could not deliver' },
        )
      ).request,
  };
}
