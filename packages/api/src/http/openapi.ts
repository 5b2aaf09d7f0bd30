/**
 * OpenAPI descriptions of routes, from the zod schemas that validate and type them
 * (`hono-openapi`'s `describeRoute`; the document is assembled by apiDocs/document.ts).
 * A route keeps validating in its handler (after its access check, so a visitor gets 401 before a
 * 400); `describe` only tells the document which schemas those are, with the envelope around each
 * answer, the refusals it can give and how it is authorized.
 *
 * @example
 * const rejectDoc = describe({ summary: 'Reject a payment', tags: ['billing'], access: 'admin',
 *   params: idParams, body: rejectSchema, ok: { 200: rejectedPaymentAnswerSchema }, errors: [404, 409] });
 * api.post('/admin/payments/:id/reject', rejectDoc, async function rejectOne(c) { … });
 */
import { dataEnvelope, errorEnvelopeSchema } from '@members/ui/api/schemas';
import type { MiddlewareHandler } from 'hono';
import { type DescribeRouteOptions, describeRoute, resolver } from 'hono-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';

/**
 * Who may call a route: `public` anyone; `member` a signed-in, approved-or-pending account
 * (bearer access token); `account` any signed-in account, also an admin who must still enrol a
 * second factor; `admin` an admin's access token; `signedUrl` no token but an HMAC-signed,
 * expiring URL (media bytes for a `<video>` element, which sends no header); `runner` a transcode
 * runner's token (`pnpm cli runners token create`), never a member's or an admin's.
 */
export type Access = 'public' | 'member' | 'account' | 'admin' | 'signedUrl' | 'runner';

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
}

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

/** The `describeRoute` middleware for one route. */
export function describe(doc: RouteDoc): MiddlewareHandler {
  const errors = new Set(doc.errors ?? []);
  if (doc.access === 'member' || doc.access === 'account' || doc.access === 'admin') errors.add(401).add(403);
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
  const bearer = doc.access === 'member' || doc.access === 'account' || doc.access === 'admin' || doc.access === 'runner';
  const who = {
    public: 'Public.',
    member: 'Signed-in members and admins (bearer access token).',
    account: 'Any signed-in account, including an admin who has yet to enrol a second factor.',
    admin: 'Admins only (bearer access token of an admin).',
    signedUrl: 'No token: the signed, expiring query (`u`, `e`, `s`) of a stream URL from GET /videos/{id}/stream authorizes it.',
    runner:
      'Transcode runners only: `Authorization: Bearer <RUNNER_TOKEN>` (`pnpm cli runners token create NAME`); member and admin tokens are refused (401).',
  }[doc.access];

  return describeRoute({
    summary: doc.summary,
    description: doc.description ? `${doc.description}\n\n${who}` : who,
    tags: doc.tags,
    security: bearer ? [{ [BEARER_SCHEME]: [] }] : [],
    ...(parameters.length ? { parameters: parameters as OpenAPIV3_1.ParameterObject[] } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: inputSchema(doc.body) } } } } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody as DescribeRouteOptions['requestBody'] } : {}),
    responses,
  });
}
