/**
 * The composition root: one Hono app serving the API under /api (every module's routes, the
 * envelope, security headers, request ids, logging, limits) and the built web app at /.
 */
import fs from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { healthSchema, publicHealthSchema } from '@members/ui/api/schemas';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { UniqueViolation } from '../db/types.js';
import { subscriberLag } from '../eventstore/subscriber.js';
import type { AppEnv } from '../http/appEnv.js';
import { authenticate } from '../http/auth.js';
import { fail, HttpError, ok, refuse } from '../http/envelope.js';
import { describe } from '../http/openapi.js';
import { sameOriginJson } from '../http/sameOrigin.js';
import { securityHeaders } from '../http/securityHeaders.js';
import { accountsAuthenticator, sessionLifetimes } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import type { AppModule } from '../kernel/module.js';
import { MEDIA_STORE_UNAVAILABLE, MediaStoreError } from '../media/index.js';
import { httpMetrics, metricsOnMainPort } from '../metrics/index.js';
import { queueStatus } from '../transcode/index.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/** Routes that take other bodies (uploads, runner files, caption files, leaked copies, nginx-rtmp's form) set their own limits, not the JSON body limit. */
const STREAMED_BODY =
  /^\/api\/(admin\/upload-video|admin\/uploads|runners\/files\/|admin\/videos\/[^/]+\/captions$|admin\/leaks\/examinations$|live\/ingest\/publish$)/;

/** Reading the request body failed in Node's HTTP parser or because the client went away. */
function unreadableBody(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  // message-text: Node names a client's abort only by its message.
  return (code === 'ECONNRESET' && err.message === 'aborted') || (typeof code === 'string' && code.startsWith('HPE_'));
}

export function createApp(ctx: AppContext, modules: readonly AppModule[], opts: { webDist?: string } = {}) {
  const app = new Hono<AppEnv>();
  app.use('*', securityHeaders(ctx.env));
  app.use('*', httpMetrics(ctx.metrics));
  app.get('/metrics', metricsOnMainPort(ctx.env, ctx.metrics));

  app.use('*', async function requestContext(c, next) {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : ctx.ids.next();
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    if (ctx.env.INSTANCE_ID) c.header('X-Served-By', ctx.env.INSTANCE_ID);
    const started = performance.now();
    await next();
    // A route answering with a Response of its own (tus) does not carry the headers set above.
    if (!c.res.headers.has('X-Request-Id')) {
      c.res.headers.set('X-Request-Id', requestId);
      if (ctx.env.INSTANCE_ID) c.res.headers.set('X-Served-By', ctx.env.INSTANCE_ID);
    }
    if (c.req.path.startsWith('/api/')) {
      ctx.logger.info(
        { requestId, method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  });

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      // RFC 9110 §10.2.3: a 429 says when to come back (a minute when the thrower did not know).
      if (err.status === 429) c.header('Retry-After', String(err.retryAfterSeconds ?? 60));
      return fail(c, err);
    }
    if (err instanceof UniqueViolation) return refuse(c, 'record.exists', 'That record already exists');
    const status = (err as { status?: number }).status;
    if (status === 413) return refuse(c, 'request.body_too_large', 'Request body is too large');
    if (unreadableBody(err)) {
      // The client's fault (a malformed chunked body, `Transfer-Encoding: identity`, a body cut
      // short): Node's parser has answered 400 and closed the socket; this is a client error, not ours.
      ctx.logger.info(
        { requestId: c.get('requestId'), path: c.req.path, code: (err as NodeJS.ErrnoException).code },
        'request body unreadable',
      );
      return refuse(c, 'request.unreadable_body', 'The request body is malformed or was cut short');
    }
    if (err instanceof MediaStoreError) {
      // The object store is down or refuses us: the client may retry; the operator reads the log.
      ctx.logger.error({ err, requestId: c.get('requestId'), path: c.req.path }, 'media store error');
      return refuse(c, 'media.store_unavailable', MEDIA_STORE_UNAVAILABLE);
    }
    ctx.logger.error({ err, requestId: c.get('requestId'), path: c.req.path }, 'unhandled error');
    return refuse(c, 'server.error', `Something went wrong! Please try again later. (request ${c.get('requestId')})`);
  });

  const api = new Hono<AppEnv>();
  // Answers with tokens or personal data must not be kept by a browser or a proxy: no-store unless
  // the route says otherwise (public thumbnails, media, the API docs page set their own).
  api.use('*', async function noStoreByDefault(c, next) {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  // JSON only, same origin only (http/sameOrigin.ts): uploads take multipart and tus bodies.
  api.use('*', sameOriginJson(ctx.env, { otherBodies: STREAMED_BODY }));
  const jsonBodyLimit = bodyLimit({
    maxSize: JSON_BODY_LIMIT,
    onError: (cc) => refuse(cc, 'request.body_too_large', `Request body is too large (limit ${JSON_BODY_LIMIT} bytes)`),
  });
  api.use('*', async function limitJsonBody(c, next) {
    // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3); asking the
    // Request for its body would build a full WHATWG Request for every GET, a third of its cost.
    if (!c.req.header('content-length') && !c.req.header('transfer-encoding')) return next();
    if (STREAMED_BODY.test(c.req.path)) return next();
    return jsonBodyLimit(c, next);
  });
  const accounts = accountsAuthenticator(ctx.db, ctx.clock, sessionLifetimes(ctx.env));
  api.use('*', authenticate(ctx, accounts));
  const healthDoc = describe({
    summary: 'Liveness; for an admin also the event store, the subscribers, the media store and the transcode queue',
    description:
      'Anonymous callers (and members) get `{ status }` only: positions, queue counts and runner ids are for admins (and in the metrics).',
    tags: ['site'],
    access: 'public',
    // An admin (past the second-factor enrolment REQUIRE_ADMIN_2FA asks for) sees the details.
    recognizes: 'admin',
    ok: { 200: z.union([healthSchema, publicHealthSchema]) },
    errors: [503],
  });
  api.get('/health', healthDoc, async (c) => {
    try {
      if (!c.get('user')) {
        // One cheap query: an unreachable store still answers 503.
        await ctx.store.headPosition();
        return ok(c, { status: 'ok' as const });
      }
      const subscribers = await subscriberLag(ctx.db, ctx.store);
      const head = await ctx.store.headPosition();
      // Lag > 0 right after a start on a restored store: the subscribers are catching up beside serving.
      const lag = subscribers.reduce((max, s) => Math.max(max, s.lag), 0);
      const transcode = { inServer: ctx.env.TRANSCODE_IN_SERVER, ...(await queueStatus(ctx.db, ctx.clock.now())) };
      const storage = ctx.media;
      // At most two seconds: an unreachable store must not make the API look dead to a health checker.
      const reachable = await Promise.race([
        storage.check().then(
          () => true,
          () => false,
        ),
        new Promise<boolean>((resolve) => setTimeout(resolve, 2000, false).unref()),
      ]);
      return ok(c, {
        status: 'ok',
        store: ctx.db.dialect,
        headPosition: head,
        subscriberLag: lag,
        subscribers,
        media: { kind: ctx.env.MEDIA_STORE === 'local' ? ('local' as const) : ('s3' as const), reachable },
        transcode,
      });
    } catch (err) {
      ctx.logger.error({ err }, 'health check failed');
      return refuse(c, 'server.event_store_unreachable', 'Event store unreachable');
    }
  });
  for (const m of modules) m.routes?.(api, ctx);
  api.all('*', (c) => refuse(c, 'route.not_found', `No API route ${c.req.method} ${c.req.path}`));
  app.route('/api', api);

  const webDist = opts.webDist;
  if (webDist && fs.existsSync(path.join(webDist, 'index.html'))) {
    const indexHtml = fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');
    app.use(
      '/assets/*',
      serveStatic({
        root: path.relative(process.cwd(), webDist),
        onFound: (_p, c) => c.header('Cache-Control', 'public, max-age=31536000, immutable'),
      }),
    );
    app.use('*', serveStatic({ root: path.relative(process.cwd(), webDist) }));
    // Client-side routes: every other GET gets the app shell.
    app.get('*', (c) => c.html(indexHtml));
  } else {
    app.get('/', (c) => c.text('API is running. Build the web app (pnpm build) to serve the site here.'));
  }
  return app;
}
