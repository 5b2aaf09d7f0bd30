/**
 * The envelope every JSON answer of the API travels in: `{ success: true, data }` or
 * `{ success: false, error, code, details? }` (errorCodes.ts lists the codes). The server documents each route's `data` with these
 * helpers (packages/api/src/http/openapi.ts) and the client unwraps `data`.
 */
import { z } from 'zod';
import { ERROR_CODE_LIST } from './errorCodes';

/**
 * A refusal or failure: `error` is the message to show, `code` the stable reason to branch on;
 * `details` lists per-field problems of a 400.
 */
export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z
      .enum(ERROR_CODE_LIST)
      .meta({ description: 'Stable, machine-readable reason (docs/api.md lists each); branch on it, not on `error`' }),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorEnvelope', description: 'A refused or failed request.' });

/** `{ success: true, data }` around one route's answer. */
export const dataEnvelope = <S extends z.ZodType>(data: S) => z.object({ success: z.literal(true), data });
