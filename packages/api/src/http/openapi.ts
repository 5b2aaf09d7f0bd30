/**
 * Each route is stated once, by its `describe({ … })`: one middleware that is at the same time
 * - its OpenAPI description (`hono-openapi`'s `describeRoute` metadata; the document is assembled by
 *   apiDocs/document.ts from the zod schemas, with the envelope around each answer, the refusals it
 *   can give and how it is authorized), and
 * - its enforcement, in this order: `access` (401/403 with the codes of http/auth.ts; the admitted
 *   account is on the context, `userOf(c)` / `callerOf(c)`), then the route's own check (`admit`),
 *   then `params`, `query` and the JSON `body` validated by the very schemas the document shows
 *   (400 `field: message` with `details`; a bad JSON body 400, http/validate.ts). A visitor thus gets
 *   401 before a 400, and no handler reads unvalidated input: it reads `c.req.valid('param' | 'query'
 *   | 'json')`, typed from the schemas.
 *
 * @example
 * api.post(
 *   '/admin/payments/:id/reject',
 *   describe({ summary: 'Reject a payment', tags: ['billing'], access: 'admin', params: idParams,
 *     body: rejectSchema, ok: { 200: rejectedPaymentAnswerSchema }, errors: [404, 409] }),
 *   async function rejectOne(c) {
 *     const { id } = c.req.valid('param');
 *     const { reason } = c.req.valid('json');
 *     return ok(c, valueOr(await rejectPayment(ctx, id, reason, callerOf(c))));
 *   },
 * );
 */
import { dataEnvelope, errorEnvelopeSchema } from '@members/ui/api/schemas';
import type { Context, MiddlewareHandler } from 'hono';
import { type DescribeRouteOptions, describeRoute, resolver, uniqueSymbol } from 'hono-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import type { ErrorCode } from '../shared/errors.js';
import type { AppEnv } from './appEnv.js';
import { adminOnly, approvedOrPending, holderStanding } from './auth.js';
import { HttpError } from './envelope.js';
import { jsonBody, parseWith } from './validate.js';

/**
 * Who may call a route: `public` anyone; `member` a signed-in, approved-or-pending account
 * (bearer access token); `account` any signed-in account, also an admin who must still enrol a
 * second factor; `admin` an admin's access token; `signedUrl` no token but an HMAC-signed,
 * expiring URL (media bytes for a `<video>` element, which sends no header); `runner` a transcode
 * runner's token (`pnpm cli runners token create`), never a member's or an admin's;
 * `accountHolder` any signed-in account holder, a member whose registration was rejected included
 * (the routes of their restricted session: profile, approval status, data export and erasure).
 *
 * `describe` enforces the account levels (`member`, `account`, `accountHolder`, `admin`) itself; a
 * signed URL and a runner token are the route's own `admit` check or its handler's.
 */
export type Access = 'public' | 'member' | 'account' | 'accountHolder' | 'admin' | 'signedUrl' | 'runner';

export interface RouteDoc {
  summary: string;
  description?: string;
  /** The product area (identity, catalog, billing, streaming, admin, audit, uploads, site). */
  tags: [string, ...string[]];
  access: Access;
  /** Path parameters, e.g. `z.object({ id: idSchema })`. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The JSON body (the schema the handler parses with `jsonBody`). */
  body?: z.ZodType;
  /** Success answers: status → the schema of `data` in `{ success: true, data }`. */
  ok?: Partial<Record<200 | 201 | 202, z.ZodType>>;
  /** Refusals besides the ones `access` and the request schemas imply (400/401/403/413 are added). */
  errors?: number[];
  /** Rate-limited per client address (429). */
  rateLimited?: boolean;
  /** Raw OpenAPI 3.1 parts for what is not JSON (binary bodies, tus headers); schemas may be `resolver(...)`. */
  requestBody?: { required?: boolean; content: Record<string, { schema: object }> };
  responses?: Record<string, { description: string; content?: Record<string, { schema: object }> }>;
  parameters?: { name: string; in: 'header' | 'query' | 'path'; required: boolean; description?: string; schema: object }[];
  /**
   * The route's own check, after `access` and before any input is read: a runner's token, a member
   * who may not pay yet. Throws an `HttpError` to refuse.
   */
  admit?: (c: Context<AppEnv>) => Promise<void> | void;
  /**
   * `admit` makes the access decision itself, instead of the account check `access` implies: the
   * viewing routes (streaming/viewing.service.ts's refusals in the spec's order, or a signed grant).
   */
  accessCheckedBy?: 'admit';
  /** What path parameters that do not parse answer instead of the 400 (an id that is not one of ours: "Video not found"). */
  invalidParams?: { code: ErrorCode; message: string };
}

type Out<K extends string, S> = [NonNullable<S>] extends [z.ZodType] ? { [k in K]: z.output<NonNullable<S>> } : Record<never, never>;

/** What `c.req.valid(…)` returns in the handler of a route described by `D`. */
export type InputOf<D extends RouteDoc> = {
  out: Out<'param', D extends { params?: infer P } ? P : undefined> &
    Out<'query', D extends { query?: infer Q } ? Q : undefined> &
    Out<'json', D extends { body?: infer B } ? B : undefined>;
};

export const BEARER_SCHEME = 'bearerAuth';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input: `error` names the first problem (`field: message`), `details` lists them all',
  401: 'Not signed in, or the access token is invalid or expired',
  403: 'Signed in but not allowed (an admin who must enrol a second factor first is refused here too)',
  404: 'Not found',
  409: 'Conflicts with the current state',
  412: 'tus: `Tus-Resumable` is missing or not `1.0.0` (HEAD included); `Tus-Version` names the version served',
  413: 'Request body is too large',
  415: 'tus: a PATCH body must be sent as `Content-Type: application/offset+octet-stream`',
  416: 'Range not satisfiable',
  426: 'Upgrade Required: open this address as a WebSocket',
  429: 'Too many requests from this address or for this account; try again after the `Retry-After` header’s seconds',
  503: 'The event store is unreachable',
};

/** A request schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses), as the client sends it. */
function inputSchema(schema: z.ZodType): OpenAPIV3_1.SchemaObject {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return json as OpenAPIV3_1.SchemaObject;
}

function parametersOf(where: 'path' | 'query', schema: z.ZodObject): NonNullable<RouteDoc['parameters']> {
  const json = inputSchema(schema);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s as OpenAPIV3_1.SchemaObject;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      schema: rest,
      ...(description ? { description } : {}),
    };
  });
}

const json = (schema: z.ZodType) => ({ 'application/json': { schema: resolver(schema, { options: { io: 'output' } }) } });

/** The access levels `describe` checks against the account's standing (the others are credentials of their own). */
const ACCOUNT_LEVELS = new Set<Access>(['member', 'account', 'accountHolder', 'admin']);

/** The middleware that describes a route and enforces its description (see the top of this file). */
export function describe<const D extends RouteDoc>(doc: D): MiddlewareHandler<AppEnv, string, InputOf<D>> {
  const described = describeRoute(documentOf(doc));
  const { access, admit, params, query, body, invalidParams, accessCheckedBy } = doc;
  const checksAccount = accessCheckedBy !== 'admit' && ACCOUNT_LEVELS.has(access);
  const enforce: MiddlewareHandler<AppEnv> = async function enforceRoute(c, next) {
    if (checksAccount) {
      const accounts = c.get('accounts');
      if (!accounts) throw new Error('describe: no accounts port on the request (createApp mounts `authenticate` first)');
      const holder = await holderStanding(accounts, c.get('auth'));
      c.set(
        'user',
        access === 'accountHolder' ? holder : access === 'admin' ? adminOnly(approvedOrPending(holder)) : approvedOrPending(holder),
      );
    }
    if (admit) await admit(c);
    if (params) {
      const parsed = params.safeParse(c.req.param());
      if (!parsed.success && invalidParams) throw new HttpError(invalidParams.code, invalidParams.message);
      c.req.addValidatedData('param', parsed.success ? (parsed.data as Record<string, unknown>) : parseWith(params, c.req.param()));
    }
    if (query) c.req.addValidatedData('query', parseWith(query, c.req.query()) as Record<string, unknown>);
    if (body) c.req.addValidatedData('json', (await jsonBody(c, body)) as Record<string, unknown>);
    await next();
  };
  Object.defineProperty(enforce, 'name', { value: 'describeRoute', configurable: true });
  // The document generator finds a route's description by hono-openapi's symbol on its middleware.
  return Object.assign(enforce, { [uniqueSymbol]: (described as unknown as Record<symbol, unknown>)[uniqueSymbol] }) as MiddlewareHandler<
    AppEnv,
    string,
    InputOf<D>
  >;
}

/** The OpenAPI operation of a route. */
function documentOf(doc: RouteDoc): DescribeRouteOptions {
  const errors = new Set(doc.errors ?? []);
  if (doc.access === 'member' || doc.access === 'account' || doc.access === 'accountHolder' || doc.access === 'admin')
    errors.add(401).add(403);
  if (doc.access === 'runner') errors.add(401);
  if (doc.body || doc.query || doc.params) errors.add(400);
  if (doc.body) errors.add(413);
  if (doc.rateLimited) errors.add(429);

  const responses: NonNullable<DescribeRouteOptions['responses']> = {};
  // `authenticate` reads a bearer token on every route: a bad one is refused even where none is needed.
  if (doc.access === 'public' && !errors.has(401))
    responses['401'] = {
      description:
        'An `Authorization` header that is malformed, or a token that is invalid, expired or of an ended session (this route needs none: leave it out)',
      content: json(errorEnvelopeSchema),
    };
  for (const [status, data] of Object.entries(doc.ok ?? {})) {
    responses[status] = {
      description: status === '201' ? 'Created' : status === '202' ? 'Accepted: the work goes on in the background' : 'OK',
      content: json(dataEnvelope(data)),
    };
  }
  Object.assign(responses, doc.responses as DescribeRouteOptions['responses']);
  // http/sameOrigin.ts: a JSON route refuses any other body type.
  if (doc.body)
    responses['415'] ??= { description: 'The body must be JSON (`Content-Type: application/json`)', content: json(errorEnvelopeSchema) };
  for (const status of [...errors].sort()) {
    responses[String(status)] ??= { description: ERROR_TEXT[status] ?? 'Refused', content: json(errorEnvelopeSchema) };
  }

  const parameters = [
    ...(doc.params ? parametersOf('path', doc.params) : []),
    ...(doc.query ? parametersOf('query', doc.query) : []),
    ...(doc.parameters ?? []),
  ];
  const bearer =
    doc.access === 'member' ||
    doc.access === 'account' ||
    doc.access === 'accountHolder' ||
    doc.access === 'admin' ||
    doc.access === 'runner';
  const who = {
    public: 'Public.',
    member: 'Signed-in members and admins (bearer access token).',
    account: 'Any signed-in account, including an admin who has yet to enrol a second factor.',
    accountHolder: 'Any signed-in account holder, a member whose registration was rejected included (bearer access token).',
    admin: 'Admins only (bearer access token of an admin).',
    signedUrl: 'No token: the signed, expiring query (`u`, `e`, `s`) of a stream URL from GET /videos/{id}/stream authorizes it.',
    runner:
      'Transcode runners only: `Authorization: Bearer <RUNNER_TOKEN>` (`pnpm cli runners token create NAME`); member and admin tokens are refused (401).',
  }[doc.access];

  return {
    summary: doc.summary,
    description: doc.description ? `${doc.description}\n\n${who}` : who,
    tags: doc.tags,
    security: bearer ? [{ [BEARER_SCHEME]: [] }] : [],
    ...(parameters.length ? { parameters: parameters as OpenAPIV3_1.ParameterObject[] } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: inputSchema(doc.body) } } } } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody as DescribeRouteOptions['requestBody'] } : {}),
    responses,
  };
}
