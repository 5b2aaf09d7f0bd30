/**
 * The query options of @members/ui/api/queries bound to the web app's client: one place per area
 * for query keys and fetchers (`useQuery(queries.catalog.video(id))`); invalidations use the same
 * keys (`catalogKeys.video(id)`).
 */
import { adminQueries, billingQueries, catalogQueries, chatQueries, customRequestQueries, identityQueries } from '@members/ui/api/queries';
import { api } from './api';

export { adminKeys, billingKeys, catalogKeys, chatKeys, customRequestKeys, identityKeys } from '@members/ui/api/queries';

export const queries = {
  admin: adminQueries(api),
  billing: billingQueries(api),
  catalog: catalogQueries(api),
  chat: chatQueries(api),
  customRequests: customRequestQueries(api),
  identity: identityQueries(api),
};
