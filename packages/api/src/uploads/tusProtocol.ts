/**
 * The tus 1.0 statuses @tus/server does not give, as a thin layer in front of it (the routes call
 * it after the access check, before tus sees the request). From the protocol text
 * (https://tus.io/protocols/resumable-upload):
 * - a missing or unsupported `Tus-Resumable` is 412 Precondition Failed with `Tus-Version`
 *   (@tus/server: 400 for an unsupported one, 412 without `Tus-Version` for a missing one);
 * - a PATCH whose Content-Type is not `application/offset+octet-stream` is 415 Unsupported Media
 *   Type (@tus/server: 400);
 * - every answer but OPTIONS carries `Tus-Resumable`, our own refusals (401, 403) included.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/appEnv.js';
import { fail } from '../http/envelope.js';
import { type AppError, appError } from '../shared/errors.js';

/** The one protocol version we serve. */
export const TUS_VERSION = '1.0.0';
/** The media type of every PATCH body. */
export const TUS_PATCH_TYPE = 'application/offset+octet-stream';

/** The protocol refusal a request earns before tus may process it, or null. Pure: headers in, verdict out. */
export function tusRefusal(method: string, headers: Headers): AppError | null {
  if (method === 'OPTIONS' || method === 'GET') return null;
  const version = headers.get('tus-resumable');
  if (version !== TUS_VERSION)
    return appError(
      'upload.tus_version_unsupported',
      version
        ? `Tus-Resumable ${version} is not supported: this server speaks tus ${TUS_VERSION}`
        : `Tus-Resumable is required: this server speaks tus ${TUS_VERSION}`,
    );
  // Exactly this value, as @tus/server compares it: a parameter would make tus refuse it later.
  if (method === 'PATCH' && headers.get('content-type') !== TUS_PATCH_TYPE)
    return appError('upload.patch_content_type', `A PATCH body must be sent as Content-Type: ${TUS_PATCH_TYPE}`);
  return null;
}

/** The refusal as the JSON envelope with the protocol's headers; null when the request may go on. */
export function refuseOffProtocol(c: Context<AppEnv>): Response | null {
  const refusal = tusRefusal(c.req.method, c.req.raw.headers);
  if (!refusal) return null;
  const answer = fail(c, refusal);
  answer.headers.set('Tus-Resumable', TUS_VERSION);
  if (refusal.status === 412) answer.headers.set('Tus-Version', TUS_VERSION);
  return answer;
}

/** Route middleware: `Tus-Resumable` on every answer of a tus route except OPTIONS, whoever wrote it. */
export const tusResumableHeader: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.req.method !== 'OPTIONS') c.res.headers.set('Tus-Resumable', TUS_VERSION);
};
