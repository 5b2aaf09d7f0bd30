/**
 * zod validation that answers 400 with the first problem named by its field, e.g.
 * `email: Invalid email address`. Bodies must be JSON objects within the size limit.
 */
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from './envelope.js';

export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid input';
  const field = issue.path.join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new HttpError(
      'validation.invalid_body',
      describeIssues(r.error),
      r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  return r.data;
}

/** Reads and validates a JSON body. A missing body counts as `{}` so the schema names the missing fields. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      throw new HttpError('validation.malformed_json', 'Request body must be valid JSON');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new HttpError('validation.malformed_json', 'Request body must be a JSON object');
  return parseWith(schema, value) as z.infer<S>;
}

/** Ids we issue are UUIDs; anything else is a 404 rather than a database probe. */
export const idSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id');

/** The `:id` of a route, for its OpenAPI description (handlers read it with `c.req.valid('param')`). */
export const idParams = z.object({ id: idSchema });

/**
 * The request's body as a Node stream, for the routes that stream it to disk (multipart uploads):
 * the Node request itself under @hono/node-server, else the Fetch body.
 */
export function rawRequestBody(c: Context): Readable | null {
  const incoming = (c.env as { incoming?: Readable } | undefined)?.incoming;
  if (incoming && typeof incoming.pipe === 'function') return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as import('node:stream/web').ReadableStream) : null;
}
