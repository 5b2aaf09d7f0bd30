/**
 * The public part of the site config (brand, models, plans, featured videos, compliance contacts)
 * for the web app and the desktop console: GET /api/site. Secrets and the xpub never leave the server.
 */
import { ok } from '../http/envelope.js';
import type { AppModule } from '../module.js';

export const siteModule: AppModule = {
  name: 'site',
  routes(api, ctx) {
    api.get('/site', (c) => {
      const { siteName, marketplaceProfileUrl, models, custodianOfRecords, contactEmail, plans, featuredVideos, bitcoin, privacy } =
        ctx.site;
      return ok(c, {
        siteName,
        marketplaceProfileUrl,
        models,
        custodianOfRecords,
        contactEmail,
        plans,
        featuredVideos,
        explorerTxUrl: bitcoin.explorerTxUrl,
        privacy,
        adminEmail: ctx.env.ADMIN_EMAIL ?? null,
      });
    });
  },
};
