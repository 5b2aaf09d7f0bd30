/**
 * Each route is stated once, by its `describe({ … })`: one middleware that is at the same time
 * - its OpenAPI description (`hono-openapi`'s `describeRoute` metadata; the document is assembled by
 *   apiDocs/document.ts from the zod schemas, with the envelope around each answer, the refusals it
 *   can give and how it is authorized), and
 * - its enforcement, in this order: `access` (401/403 with the codes of http/auth.ts; the admitted
 *   account is on the context, `userOf(c)` / `callerOf(c)`; a runner's token), then the route's own
 *   check (`admit`), then `params`; then a credential checked on the path it signs (a signed URL, a
 *   ticket, a viewing decision: `Credential`, its grant read with `grantOf(c, credential)`) and the
 *   resource's `owner`; then `query` and the JSON `body` validated by the very schemas the document
 *   shows (400 `field: message` with `details`; a bad JSON body 400, http/validate.ts). A visitor thus
 *   gets 401 before a 400, no handler reads unvalidated input (it reads `c.req.valid('param' | 'query'
 *   | 'json')`, typed from the schemas) and none checks access itself (scripts/check-route-contract.mjs).
 *
 * @example
 * api.post(
 *   '/admin/payments/:id/reject',
 *   describe({ summary: 'Reject a payment', tags: ['billing'], access: 'admin', permission: 'payments', params: idParams,
 *     body: rejectSchema, ok: { 200: rejectedPaymentAnswerSchema }, errors: [404, 409] }),
 *   async function rejectOne(c) {
 *     const { id } = c.req.valid('param');
 *     const { reason } = c.req.valid('json');
 *     return ok(c, valueOr(await rejectPayment(ctx, id, reason, callerOf(c))));
 *   },
 * );
 */
import { dataEnvelope, errorEnvelopeSchema } from '@members/ui/api/schemas';
import { ROLE_PERMISSIONS, STAFF_ROLES, type StaffPermission } from '@members/ui/staffRoles';
import type { Context, MiddlewareHandler } from 'hono';
import { type DescribeRouteOptions, describeRoute, resolver, uniqueSymbol } from 'hono-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import type { ErrorCode } from '../shared/errors.js';
import type { AccountStanding, AppEnv } from './appEnv.js';
import { adminOnly, approvedOrPending, holderStanding, staffWith, userOf } from './auth.js';
import { HttpError } from './envelope.js';
import { jsonBody, parseWith } from './validate.js';

/** The account levels `describe` checks against the account's standing (http/auth.ts). */
export type AccountLevel = 'member' | 'account' | 'accountHolder' | 'admin';

/**
 * A credential of its own that opens a route instead of an account, checked by `describe` before
 * the handler (`Access`): an HMAC-signed, expiring URL (media bytes for a `<video>` element, which
 * sends no header; a runner's job file), a transcode runner's token, a single-use ticket, an area's
 * access decision. What it grants is the context's `grant` variable (http/appEnv.ts), which the
 * handler reads typed with `grantOf(c, credential)`.
 */
export interface Credential<G = unknown, Q extends z.ZodObject = z.ZodObject> {
  /** Who may call, for the document. */
  who: string;
  /**
   * The query fields the credential is read from, documented. A signature's are optional strings: a
   * missing or malformed field is its own refusal (403), never a 400. (The chat ticket's are the
   * route's query: a malformed one is a 400 before the ticket is spent.)
   */
  query?: Q;
  /** The query fields every URL of the scheme carries (documented as required). */
  required?: readonly string[];
  /** Anyone may call: the credential only identifies a viewer, it refuses no one (documented as public). */
  open?: boolean;
  /** Bearer-token callers are admitted too (a `<track>` URL or the member's own token). */
  bearer?: boolean;
  /**
   * Checks the credential: a runner's before anything else, a signed URL's once the path parameters
   * it signs are parsed (an id that is not one of ours stays "Video not found"). Throws its refusal.
   */
  verify(c: Context<AppEnv>, input: { param: Record<string, unknown>; query: z.output<Q> }): G | Promise<G>;
}

/**
 * Who may call a route: `public` anyone; `member` a signed-in, approved-or-pending account
 * (bearer access token); `account` any signed-in account, also an admin who must still enrol a
 * second factor; `admin` an admin's access token; `accountHolder` any signed-in account holder, a
 * member whose registration was rejected included (the routes of their restricted session: profile,
 * approval status, data export and erasure); `{ signedUrl }`, `{ runner }` and `{ ticket }` (a
 * single-use ticket: the chat's WebSocket) a credential of its own (`Credential`); `{ decision }` an
 * area's own access decision on the resource the path names (streaming's viewing decision, spec §4's
 * refusals in its order, from the bearer token). `describe` enforces every one of them before the
 * route's handler.
 */
export type Access =
  | 'public'
  | AccountLevel
  | { signedUrl: Credential<any, any> }
  | { runner: Credential<any, any> }
  | { ticket: Credential<any, any> }
  | { decision: Credential<any, any> };

/**
 * The owner of the resource a route names (a tus upload is its creator's): checked by `describe`
 * once the path parameters are parsed, for the account `access` admitted; anyone else gets `refusal`.
 */
export interface Ownership {
  owns(c: Context<AppEnv>, param: Record<string, unknown>, caller: AccountStanding): Promise<boolean>;
  /** The answer to anyone else (a response of its own: tus's headers). */
  refusal(c: Context<AppEnv>): Response;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  /** The product area (identity, catalog, billing, streaming, admin, audit, uploads, site). */
  tags: [string, ...string[]];
  access: Access;
  /**
   * What an `admin` route asks of the staff member's role (@members/ui/staffRoles, the one matrix):
   * required on every admin route, refused with 403 `auth.permission_required` naming it, and listed
   * in the document (`x-staff-permission` and the description).
   */
  permission?: StaffPermission;
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
   * The route's own check, after `access` and before any input is read: a member who may not pay
   * yet, a WebSocket request. Throws an `HttpError` to refuse, or returns the refusal's response
   * (one with headers of its own: tus's 412).
   */
  admit?: (c: Context<AppEnv>) => unknown;
  /** `admit` once the path parameters are parsed (tus: a malformed upload id is a 400 before the protocol's 412). */
  admitAfterParams?: boolean;
  /**
   * A `public` route that recognizes an admin (past the second-factor enrolment REQUIRE_ADMIN_2FA
   * asks for) without refusing anyone else: `c.var.user` is the admin, or undefined.
   */
  recognizes?: 'admin';
  /** Only the owner of the resource the path names may call (`Ownership`). */
  owner?: Ownership;
  /** What path parameters that do not parse answer instead of the 400 (an id that is not one of ours: "Video not found"). */
  invalidParams?: { code: ErrorCode; message: string };
}

type Out<K extends string, S> = [NonNullable<S>] extends [z.ZodType] ? { [k in K]: z.output<NonNullable<S>> } : Record<never, never>;

/**
 * What the route's credential granted (`c.var.grant`, set by `describe` before the handler), typed by
 * the credential its `access` names: `grantOf(c, hlsGrant)`.
 */
export function grantOf<G>(c: { get(key: 'grant'): unknown }, _credential: Credential<G, any>): G {
  const grant = c.get('grant');
  if (grant === undefined) throw new Error('grantOf: the route is not opened by this credential');
  return grant as G;
}

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

/** The route's credential and when it is checked, if `access` names one. */
function credentialOf(access: Access): { credential: Credential; when: 'first' | 'afterParams' } | undefined {
  if (typeof access !== 'object') return undefined;
  if ('runner' in access) return { credential: access.runner, when: 'first' };
  const credential = 'signedUrl' in access ? access.signedUrl : 'ticket' in access ? access.ticket : access.decision;
  return { credential, when: 'afterParams' };
}

/** The admitted account, by the level `access` names and an admin route's `permission` (401/403 with the codes of http/auth.ts). */
async function admitAccount(c: Context<AppEnv>, access: AccountLevel, permission: StaffPermission | undefined): Promise<void> {
  const accounts = c.get('accounts');
  if (!accounts) throw new Error('describe: no accounts port on the request (createApp mounts `authenticate` first)');
  const holder = await holderStanding(accounts, c.get('auth'));
  if (access === 'accountHolder') c.set('user', holder);
  else if (access !== 'admin') c.set('user', approvedOrPending(holder));
  else c.set('user', permission ? staffWith(permission, approvedOrPending(holder)) : adminOnly(approvedOrPending(holder)));
}

/** The staff roles that hold `permission`, for the document. */
const rolesWith = (permission: StaffPermission) => STAFF_ROLES.filter((role) => ROLE_PERMISSIONS[role].includes(permission));

/** The caller if they are an admin past the second-factor enrolment (`authenticate` marks one who is not), else undefined. */
async function recognizedAdmin(c: Context<AppEnv>): Promise<AccountStanding | undefined> {
  const auth = c.get('auth');
  if (!auth || auth.enrolmentRequired) return undefined;
  const standing = await c.get('accounts')?.standing(auth.userId);
  return standing?.role === 'admin' ? standing : undefined;
}

/** The path parameters, or the route's answer to ones that do not parse (400, or `invalidParams`). */
function parsedParams(c: Context<AppEnv>, params: z.ZodObject, invalid: RouteDoc['invalidParams']): Record<string, unknown> {
  const parsed = params.safeParse(c.req.param());
  if (!parsed.success && invalid) throw new HttpError(invalid.code, invalid.message);
  return parsed.success ? (parsed.data as Record<string, unknown>) : parseWith(params, c.req.param());
}

/** The middleware that describes a route and enforces its description (see the top of this file). */
export function describe<const D extends RouteDoc>(doc: D): MiddlewareHandler<AppEnv, string, InputOf<D>> {
  const { access, admit, admitAfterParams, params, query, body, invalidParams, owner, recognizes, permission } = doc;
  if (access === 'admin' && !permission) throw new Error(`describe: the admin route "${doc.summary}" names no staff permission`);
  if (permission && access !== 'admin') throw new Error(`describe: "${doc.summary}" names a staff permission but is not an admin route`);
  const described = describeRoute(documentOf(doc));
  const level = ACCOUNT_LEVELS.has(access) ? (access as AccountLevel) : undefined;
  const cred = credentialOf(access);
  const verify = async (c: Context<AppEnv>, param: Record<string, unknown>) => {
    if (!cred) return;
    const fields = cred.credential.query ? parseWith(cred.credential.query, c.req.query()) : {};
    c.set('grant', await cred.credential.verify(c, { param, query: fields }));
  };
  const enforce: MiddlewareHandler<AppEnv> = async function enforceRoute(c, next) {
    if (level) await admitAccount(c, level, permission);
    if (recognizes) c.set('user', await recognizedAdmin(c));
    if (cred?.when === 'first') await verify(c, {});
    const refused = admit && !admitAfterParams ? await admit(c) : undefined;
    if (refused instanceof Response) return refused;
    const param = params ? parsedParams(c, params, invalidParams) : {};
    if (params) c.req.addValidatedData('param', param);
    if (cred?.when === 'afterParams') await verify(c, param);
    const refusedLater = admit && admitAfterParams ? await admit(c) : undefined;
    if (refusedLater instanceof Response) return refusedLater;
    if (owner && !(await owner.owns(c, param, userOf(c)))) return owner.refusal(c);
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
  const cred = credentialOf(doc.access);
  const level = ACCOUNT_LEVELS.has(doc.access);
  if (level || cred?.credential.bearer) errors.add(401).add(403);
  if (cred?.when === 'first') errors.add(401);
  if (doc.owner) errors.add(404);
  if (doc.body || doc.query || doc.params) errors.add(400);
  if (doc.body) errors.add(413);
  if (doc.rateLimited) errors.add(429);

  const responses: NonNullable<DescribeRouteOptions['responses']> = {};
  const open = doc.access === 'public' || cred?.credential.open === true;
  // `authenticate` reads a bearer token on every route: a bad one is refused even where none is needed.
  if (open && !errors.has(401))
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
    ...(cred?.credential.query && cred.credential.query !== doc.query
      ? parametersOf('query', cred.credential.query).map((p) => ({ ...p, required: cred.credential.required?.includes(p.name) ?? false }))
      : []),
    ...(doc.parameters ?? []),
  ];
  const bearer = level || cred?.when === 'first' || cred?.credential.bearer === true;
  const who =
    typeof doc.access === 'object'
      ? (cred?.credential.who ?? '')
      : {
          public: 'Public.',
          member: 'Signed-in members and admins (bearer access token).',
          account: 'Any signed-in account, including an admin who has yet to enrol a second factor.',
          accountHolder: 'Any signed-in account holder, a member whose registration was rejected included (bearer access token).',
          admin: doc.permission
            ? `Staff whose role has the \`${doc.permission}\` permission: ${rolesWith(doc.permission).join(', ')} (bearer access token of an admin; any other staff role is refused with 403 \`auth.permission_required\`).`
            : 'Admins only (bearer access token of an admin).',
        }[doc.access];

  return {
    summary: doc.summary,
    description: doc.description ? `${doc.description}\n\n${who}` : who,
    tags: doc.tags,
    security: bearer ? [{ [BEARER_SCHEME]: [] }] : [],
    ...(doc.permission ? { 'x-staff-permission': doc.permission } : {}),
    ...(parameters.length ? { parameters: parameters as OpenAPIV3_1.ParameterObject[] } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: inputSchema(doc.body) } } } } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody as DescribeRouteOptions['requestBody'] } : {}),
    responses,
  };
}
