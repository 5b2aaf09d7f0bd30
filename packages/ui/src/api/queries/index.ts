/**
 * TanStack Query options, one file per area: each defines its query keys and the fetchers over
 * the API client, so the web app and the desktop renderer read and invalidate the same keys
 * (`useQuery(catalogQueries(api).video(id))`, `qc.invalidateQueries({ queryKey: catalogKeys.video(id) })`).
 */
export { adminKeys, adminQueries } from './admin';
export { billingKeys, billingQueries } from './billing';
export { catalogKeys, catalogQueries } from './catalog';
export { chatKeys, chatQueries } from './chat';
export { customRequestKeys, customRequestQueries } from './customRequests';
export { identityKeys, identityQueries } from './identity';
