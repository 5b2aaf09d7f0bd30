/**
 * The public part of the site config (brand, models, plans, featured videos, compliance contacts, privacy retention periods)
 * for the web app and the desktop console: GET /api/site. Secrets and the xpub never leave the server.
 */
import { siteInfoSchema } from '@members/ui/api/schemas';
import { ok } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { AppModule } from '../kernel/module.js';

export const siteModule: AppModule = {
  name: 'site',
  routes(api, ctx) {
    const siteDoc = describe({
      summary: 'The public site config: brand, models, plans, featured videos, compliance contacts',
      tags: ['site'],
      access: 'public',
      ok: { 200: siteInfoSchema },
    });
    api.get('/site', siteDoc, (c) => {
      const {
        siteName,
        marketplaceProfileUrl,
        models,
        custodianOfRecords,
        contactEmail,
        plans,
        featuredVideos,
        bitcoin,
        privacy,
        theme,
        releases,
      } = ctx.site;
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
        theme,
        releases,
      });
    });
  },
};
