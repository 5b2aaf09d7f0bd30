/**
 * The envelope every JSON answer of the API travels in: `{ success: true, data }` or
 * `{ success: false, error, details? }`. The server documents each route's `data` with these
 * helpers (packages/api/src/http/openapi.ts) and the client unwraps `data`.
 */
import { z } from 'zod';

/** A refusal or failure: `error` is the message to show; `details` lists per-field problems of a 400. */
export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorEnvelope', description: 'A refused or failed request.' });

/** `{ success: true, data }` around one route's answer. */
export const dataEnvelope = <S extends z.ZodType>(data: S) => z.object({ success: z.literal(true), data });
