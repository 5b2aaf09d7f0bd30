/** The admin dashboard: the very component the web /admin renders, from @members/ui. */
import { AdminDashboard } from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import { useSite } from './useSite.js';

export function Dashboard({ api }: { api: ApiClient }) {
  const { models, explorerTemplate } = useSite(api);
  return <AdminDashboard client={api} models={models} explorerTemplate={explorerTemplate} />;
}
