/** The configured models (for the model selects) and the explorer template, from GET /api/site. */

import type { ApiClient } from '@members/ui/api';
import { catalogQueries } from '@members/ui/api/queries';
import { useBrandPalette } from '@members/ui/theme/apply';
import { useQuery } from '@tanstack/react-query';

export function useSite(api: ApiClient) {
  const site = useQuery({ ...catalogQueries(api).site(), staleTime: 5 * 60_000 });
  useBrandPalette(site.data?.theme);
  return {
    models: (site.data?.models ?? []).map((m) => m.name),
    explorerTemplate: site.data?.bitcoin?.explorerTxUrl,
  };
}
