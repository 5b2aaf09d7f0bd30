/** The API client handed to shared components through context (web and admin desktop each provide theirs). */
import { createContext, type ReactNode, useContext } from 'react';
import type { ApiClient } from '../api/client';

const ApiClientContext = createContext<ApiClient | null>(null);

export function ApiClientProvider({ client, children }: { client: ApiClient; children: ReactNode }) {
  return <ApiClientContext.Provider value={client}>{children}</ApiClientContext.Provider>;
}

/** The client from the nearest provider; throws when none, which is a wiring bug. */
export function useApiClient(): ApiClient {
  const client = useContext(ApiClientContext);
  if (!client) throw new Error('useApiClient needs an <ApiClientProvider>');
  return client;
}

/** The client from the nearest provider, or null. */
export function useOptionalApiClient(): ApiClient | null {
  return useContext(ApiClientContext);
}
