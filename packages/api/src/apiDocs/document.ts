/**
 * The OpenAPI 3.1 document of the API, assembled by `hono-openapi` from the `describe(...)` of
 * every mounted route (http/openapi.ts), so it is generated from the same zod schemas that
 * validate requests and type answers. Paths are relative to the server URL `/api`.
 *
 * It lints clean under Redocly's `recommended` rules (apiDocs/openapi.int.test.ts), hence:
 * - a licence: MIT, the project's (LICENSE at the repository root; `info.license.identifier` is its
 *   SPDX id);
 * - the media playlist's path spelled as its URLs are, `/hls/{id}/{height}p/index.m3u8` (Hono's
 *   route has one whole-segment parameter, `:rendition{[0-9]+p}`), so no path matcher can take
 *   `/hls/{id}/segments/{segment}` or `/hls/{id}/sprites/{sprite}` for it. The URLs are unchanged.
 */
import { ERROR_CODES } from '@members/ui/api/schemas';
import type { Hono } from 'hono';
import { generateSpecs } from 'hono-openapi';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { AppEnv } from '../http/appEnv.js';
import { BEARER_SCHEME } from '../http/openapi.js';

export const OPENAPI_VERSION = '3.1.0';

const TAGS = [
  { name: 'identity', description: 'Registration, login, sessions, the second factor, profile, approval' },
  { name: 'catalog', description: 'The video library (public shop window) and its administration' },
  { name: 'streaming', description: 'Signed stream URLs under the access decision, the media bytes, views' },
  { name: 'billing', description: 'Plans, Bitcoin payment requests and submissions, subscriptions, verification' },
  { name: 'chat', description: "Members' live chat with the team (text, WebSocket push), the admin inbox" },
  { name: 'uploads', description: 'tus 1.0 resumable uploads (binary, not JSON)' },
  { name: 'live', description: 'Live shows: scheduling, the RTMP ingest key, the live HLS under the access decision' },
  { name: 'forensics', description: 'Leak tracing: which member a leaked copy was streamed by' },
  { name: 'admin', description: 'Admin-only routes' },
  { name: 'audit', description: 'Tamper-evident history reports' },
  { name: 'site', description: 'Public site config, region check, health' },
  { name: 'docs', description: 'This document and its reference UI' },
];

/** HEAD is served by Hono through the GET route; where HEAD means something (tus offset, media size) it is listed. */
const HEAD_OF = ['/admin/uploads/{id}', '/media/videos/{id}', '/videos/{id}/thumbnail'];

/** Paths the document spells more exactly than Hono's route (see the module comment): route path → documented path. */
export const DOCUMENTED_PATHS: Record<string, string> = {
  '/hls/{id}/{rendition}/index.m3u8': '/hls/{id}/{height}p/index.m3u8',
  '/live/hls/{id}/{rendition}/index.m3u8': '/live/hls/{id}/{height}p/index.m3u8',
};
const HEIGHT_PARAM: OpenAPIV3_1.ParameterObject = {
  name: 'height',
  in: 'path',
  required: true,
  description: 'The rendition: `1080` for the `1080p` rendition',
  schema: { type: 'string', pattern: '^[0-9]+$' },
};

/** Builds the document from the mounted routes of `api` (the app under /api). */
export async function buildOpenApiDocument(api: Hono<AppEnv>, info: { title: string; version: string }): Promise<OpenAPIV3_1.Document> {
  const doc = (await generateSpecs(api, {
    excludeMethods: [],
    excludeStaticFile: false,
    documentation: {
      openapi: OPENAPI_VERSION,
      info: {
        title: info.title,
        version: info.version,
        license: { name: 'MIT', identifier: 'MIT' },
        description: [
          'Every JSON answer is an envelope: `{ "success": true, "data": … }` or `{ "success": false, "error": "message", "code": "video.not_found", "details"?: [...] }`.',
          '`code` is a stable, machine-readable reason: branch on it, not on the message. `x-error-codes` lists every code with its status and meaning (the `ErrorEnvelope` schema enumerates them).',
          'Authenticate with `Authorization: Bearer <access token>` from POST /auth/login (15 minutes; POST /auth/refresh renews it from the httpOnly refresh cookie with the `X-CSRF-Token` header).',
          'Uploads under /admin/uploads speak the tus 1.0 protocol; /media/videos/{id} serves video bytes behind a signed URL.',
        ].join('\n\n'),
      },
      servers: [{ url: '/api', description: 'This server' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          [BEARER_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'The access token (HS256 JWT) from POST /auth/login, /auth/mfa/verify or /auth/refresh.',
          },
        },
      },
    },
  })) as OpenAPIV3_1.Document;
  for (const [routePath, documented] of Object.entries(DOCUMENTED_PATHS)) {
    const item = doc.paths?.[routePath];
    if (!item || !doc.paths) continue;
    for (const op of Object.values(item) as OpenAPIV3_1.OperationObject[]) {
      op.parameters = op.parameters?.map((p) => ((p as OpenAPIV3_1.ParameterObject).name === 'rendition' ? HEIGHT_PARAM : p));
    }
    delete doc.paths[routePath];
    doc.paths[documented] = item;
  }
  for (const path of HEAD_OF) {
    const get = doc.paths?.[path]?.get;
    if (!get || !doc.paths?.[path]) continue;
    const responses = Object.fromEntries(
      Object.entries(get.responses ?? {}).map(([status, r]) => [status, { description: (r as OpenAPIV3_1.ResponseObject).description }]),
    );
    doc.paths[path].head = {
      ...get,
      operationId: `head${(get.operationId ?? '').replace(/^get/, '')}`,
      summary: `${get.summary} (headers only)`,
      responses,
    };
  }
  // The error vocabulary (ui/api/schemas/errorCodes.ts): every code the server answers, its status and meaning.
  (doc as OpenAPIV3_1.Document & { 'x-error-codes'?: unknown })['x-error-codes'] = ERROR_CODES;
  return doc;
}
