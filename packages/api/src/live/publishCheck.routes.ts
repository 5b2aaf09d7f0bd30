/**
 * The publish check of Debian's nginx-rtmp in front of the ingest (issue 43 item 2, production
 * shape; deploy/nginx-rtmp.conf, docs/live.md "nginx-rtmp in front"):
 *
 *   POST /live/ingest/publish?secret=…   nginx-rtmp's `on_publish`: 2xx = the publish goes on (and
 *                                        nginx relays it to the embedded ingest), 403 = nginx drops it
 *
 * nginx-rtmp posts the publish as a form (`call=publish&app=live&name={stream key}&addr=…`, then
 * whatever query the encoder put after the key). The key is checked by the very function the
 * embedded ingest uses (shows.service.ts `showForStreamKey`: a scheduled show's current key), so a
 * wrong, rotated-away or reused key (a show already live or ended) is refused by nginx before any
 * byte of it reaches the API's ingest.
 *
 * Who may ask: only the holder of LIVE_PUBLISH_SECRET, in the URL's query. A shared secret rather
 * than an nginx rule closes the route on every deployment shape (behind the shipped HTTP nginx, in
 * the compose stack, an API port reached directly), and the encoder cannot supply it: nginx-rtmp
 * keeps the configured URL's query as it is and puts the encoder's own arguments in the body. The
 * API logs a request's path, never its query.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { HttpError, ok } from '../http/envelope.js';
import { type Credential, describe } from '../http/openapi.js';
import type { AppContext } from '../kernel/context.js';
import type { Routes } from '../kernel/module.js';
import { showForStreamKey } from './shows.service.js';

/** nginx-rtmp's form is a few hundred bytes; anything much larger is not nginx-rtmp. */
const MAX_FORM_BYTES = 8192;

export const PUBLISH_REFUSED = 'The stream key is not the current key of a scheduled show';
const SECRET_REFUSED = 'Only the ingest’s nginx-rtmp, with LIVE_PUBLISH_SECRET, may ask';

const digest = (s: string) => createHash('sha256').update(s).digest();

const secretQuery = z.object({
  secret: z.string().optional().describe('LIVE_PUBLISH_SECRET (in the `on_publish` URL of deploy/nginx-rtmp.conf)'),
});

/** The ingest's nginx-rtmp: the secret in the query equals LIVE_PUBLISH_SECRET (none set: nobody). */
function ingestSecret(ctx: AppContext): Credential<true, typeof secretQuery> {
  return {
    who: "No token: nginx-rtmp's `on_publish`, with `?secret=` LIVE_PUBLISH_SECRET (unset: every call is refused, 403).",
    query: secretQuery,
    required: ['secret'],
    verify(_c, { query }) {
      const expected = ctx.env.LIVE_PUBLISH_SECRET;
      if (!expected || query.secret === undefined || !timingSafeEqual(digest(query.secret), digest(expected)))
        throw new HttpError('live.publish_refused', SECRET_REFUSED);
      return true;
    },
  };
}

export const publishCheckRoutes: Routes = (api, ctx) => {
  const doc = describe({
    summary: "nginx-rtmp's publish check (`on_publish`): 2xx for a scheduled show's current stream key, 403 otherwise",
    description:
      "Called by the ingest's nginx-rtmp (deploy/nginx-rtmp.conf), never by a browser: the body is nginx-rtmp's form (`application/x-www-form-urlencoded`: `call=publish`, `app`, `name` = the stream key, `addr`). A 403 makes nginx drop the publish before anything is relayed to the API's ingest.",
    tags: ['live'],
    access: { signedUrl: ingestSecret(ctx) },
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['call', 'name'],
            properties: {
              call: { type: 'string', enum: ['publish'] },
              app: { type: 'string' },
              name: { type: 'string', description: 'The stream key OBS publishes' },
              addr: { type: 'string', description: "The encoder's address" },
            },
          },
        },
      },
    },
    ok: { 200: z.object({ showId: z.string() }) },
    errors: [403, 413],
  });
  api.post('/live/ingest/publish', doc, async function checkPublish(c) {
    const length = Number(c.req.header('content-length') ?? Number.NaN);
    if (!(length <= MAX_FORM_BYTES))
      throw new HttpError('request.body_too_large', `Request body is too large (limit ${MAX_FORM_BYTES} bytes)`);
    const form = new URLSearchParams(await c.req.text());
    const streamKey = form.get('name') ?? '';
    const show = form.get('call') === 'publish' ? await showForStreamKey(ctx, streamKey) : null;
    if (!show) {
      ctx.logger
        .child({ area: 'live' })
        .info({ addr: form.get('addr') }, 'live: nginx-rtmp asked about a wrong, old or reused stream key: refused');
      throw new HttpError('live.publish_refused', PUBLISH_REFUSED);
    }
    return ok(c, { showId: show.id });
  });
};
