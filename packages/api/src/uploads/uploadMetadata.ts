/**
 * The video's details travel in the tus `Upload-Metadata` header (RFC-less but standard in tus:
 * comma-separated `key base64(value)` pairs, decoded by @tus/server). This schema checks the
 * decoded pairs at creation, before a byte is stored; the same field rules as ingestion then apply
 * (`validateDetails`). Keys other tus clients add on their own (`filetype`, `name`, `relativePath`…)
 * are ignored.
 *
 * Keys: `filename` (required), `title` (required), `description`, `model`, `accessLevel`
 * (`free`/`members`…), `tags` and `categories` (comma-separated), `durationText` (mm:ss as typed),
 * `thumbnailAtSeconds` (where to take the thumbnail frame; default ~10% of the video).
 */
import { z } from 'zod';
import { describeIssues } from '../http/validate.js';

const text = (max: number) => z.string().max(max).optional();

export const uploadMetadataSchema = z.object({
  filename: z.string().trim().min(1, 'required').max(255),
  title: z.string({ error: 'required' }).max(1000),
  description: text(20_000),
  model: text(500),
  accessLevel: text(20),
  tags: text(4000),
  categories: text(4000),
  durationText: text(20),
  thumbnailAtSeconds: z
    .string()
    .regex(/^\d{1,6}(\.\d{1,3})?$/, 'a number of seconds')
    .transform(Number)
    .optional(),
});

export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;

/** tus hands metadata values as `string | null` (a key without a value is null). */
export function parseUploadMetadata(
  raw: Record<string, string | null> | undefined,
): { ok: true; value: UploadMetadata } | { ok: false; error: string } {
  const present = Object.fromEntries(Object.entries(raw ?? {}).filter(([, v]) => v !== null));
  const parsed = uploadMetadataSchema.safeParse(present);
  if (!parsed.success) return { ok: false, error: `Upload-Metadata: ${describeIssues(parsed.error)}` };
  return { ok: true, value: parsed.data };
}
