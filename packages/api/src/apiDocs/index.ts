/**
 * The API's contract: GET /api/openapi.json (OpenAPI 3.1, generated from the routes' zod schemas)
 * and GET /api/docs (a reference UI). Open in development (NODE_ENV=development); elsewhere the
 * document is for admins (bearer token) and the docs page, a viewer with no data of its own,
 * fetches it with the token of the admin signed in to the web app. Mount this module last: the
 * document is built from every route mounted before the first request for it.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/appEnv.js';
import { HttpError } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import type { AppModule, Routes } from '../kernel/module.js';
import { APP_VERSION } from '../kernel/version.js';
import { DOCS_CSP, DOCS_HTML, docsAsset } from './docsPage.js';
import { buildOpenApiDocument } from './document.js';

export { buildOpenApiDocument } from './document.js';

/** The media type the OpenAPI Initiative registered for OpenAPI documents in JSON. */
export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.1';

const documents = new WeakMap<Hono<AppEnv>, Promise<unknown>>();

const apiDocsRoutes: Routes = (api, ctx) => {
  const open = ctx.env.NODE_ENV === 'development';
  const access = open ? ('public' as const) : ('admin' as const);
  const documentOf = () => {
    let doc = documents.get(api);
    if (!doc) {
      doc = buildOpenApiDocument(api, { title: `${ctx.site.siteName} API`, version: APP_VERSION });
      documents.set(api, doc);
    }
    return doc;
  };
  const page = (c: Context<AppEnv>) => {
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  };

  api.get(
    '/openapi.json',
    describe({
      summary: 'This document (OpenAPI 3.1)',
      description: 'Open in development; admins only otherwise.',
      tags: ['docs'],
      access,
      // Every staff role may read the contract (it holds no data).
      ...(open ? {} : { permission: 'reference' as const }),
      responses: { 200: { description: 'The OpenAPI 3.1 document', content: { [OPENAPI_MEDIA_TYPE]: { schema: { type: 'object' } } } } },
    }),
    async function openApiDocument(c) {
      c.header('Cache-Control', 'no-store');
      // The OpenAPI media type: the document is not an answer in the `{ success, data }` envelope.
      return c.body(JSON.stringify(await documentOf()), 200, { 'Content-Type': OPENAPI_MEDIA_TYPE });
    },
  );

  api.get(
    '/docs',
    describe({
      summary: 'The reference UI (Swagger UI, served locally)',
      description: 'A viewer with no data of its own: it loads /openapi.json with the access token the web app stored in this browser.',
      tags: ['docs'],
      access: 'public',
      responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    }),
    function docsPage(c) {
      page(c);
      c.header('Cache-Control', 'no-cache');
      return c.html(DOCS_HTML);
    },
  );

  api.get(
    '/docs/:asset',
    describe({
      summary: "The reference UI's scripts and styles",
      tags: ['docs'],
      access: 'public',
      params: z.object({ asset: z.enum(['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) }),
      invalidParams: { code: 'not_found', message: 'No such file' },
      responses: {
        200: {
          description: 'JavaScript or CSS',
          content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
        },
      },
      errors: [404],
    }),
    function docsAssetFile(c) {
      const asset = docsAsset(c.req.valid('param').asset);
      if (!asset) throw new HttpError('not_found', 'No such file');
      page(c);
      c.header('Content-Type', asset.type);
      c.header('Cache-Control', 'public, max-age=3600');
      return c.body(typeof asset.body === 'string' ? asset.body : new Uint8Array(asset.body), 200);
    },
  );
};

export const apiDocsModule: AppModule = { name: 'apiDocs', routes: apiDocsRoutes };
