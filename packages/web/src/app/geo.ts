/**
 * The geo check: fetched on every page load, its last answer kept under the `geoLocation` key so a
 * returning visitor is not kept waiting (spec §3, §7).
 */
import type { GeoCheck } from '@members/ui/api';
import { useQuery } from '@tanstack/react-query';
import { api } from './api';
import { catalogKeys } from './queries';

const KEY = 'geoLocation';

function cached(): GeoCheck | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as GeoCheck) : undefined;
  } catch {
    return undefined;
  }
}

export interface GeoState {
  loading: boolean;
  blocked: boolean;
  requiresVerification: boolean;
  error: string | null;
  result?: GeoCheck;
}

export function useGeo(): GeoState {
  const q = useQuery({
    queryKey: catalogKeys.geo,
    queryFn: async () => {
      const result = await api.geoCheck();
      try {
        localStorage.setItem(KEY, JSON.stringify(result));
      } catch {
        // storage full or disabled: the answer is still used for this page
      }
      return result;
    },
    staleTime: Number.POSITIVE_INFINITY,
    placeholderData: cached,
  });
  const result = q.data;
  if (!result && q.isError) {
    // The server enforces the region on the stream itself; a failed check explains but does not block.
    return { loading: false, blocked: false, requiresVerification: false, error: (q.error as Error).message || 'Geolocation check failed' };
  }
  return {
    loading: !result,
    blocked: Boolean(result?.blocked),
    requiresVerification: Boolean(result?.requiresVerification),
    error: null,
    result,
  };
}
