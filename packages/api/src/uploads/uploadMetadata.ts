/**
 * The video's details travel in the tus `Upload-Metadata` header (RFC-less but standard in tus:
 * comma-separated `key base64(value)` pairs, decoded by @tus/server). This schema checks the
 * decoded pairs at creation, before a byte is stored; the same field rules as ingestion then apply
 * (`validateDetails`). Keys other tus clients add on their own (`filetype`, `name`, `relativePath`…)
 * are ignored.
 *
 * Keys: `filename` (required), `title` (required), `description`, `model`, `accessLevel`
 * (`free`/`members`…), `tags` and `categories` (comma-separated), `durationText` (mm:ss as typed),
 * `thumbnailAtSeconds` (where to take the thumbnail frame; default ~10% of the video), `exclusiveTo`
 * (`annual`: behind-the-scenes) and `publishAt` (ISO 8601 with an offset: the scheduled release).
 */
import { uploadMetadataSchema } from '@members/ui/api/schemas';
import type { z } from 'zod';
import { describeIssues } from '../http/validate.js';
import { failure, type Result, success } from '../shared/result.js';

/** Shared with the clients (`@members/ui/api/schemas`): the console's tus metadata is typed by it. */
export { uploadMetadataSchema };

export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;

/** tus hands metadata values as `string | null` (a key without a value is null). */
export function parseUploadMetadata(raw: Record<string, string | null> | undefined): Result<UploadMetadata> {
  const present = Object.fromEntries(Object.entries(raw ?? {}).filter(([, v]) => v !== null));
  const parsed = uploadMetadataSchema.safeParse(present);
  if (!parsed.success) return failure('validation.invalid_body', `Upload-Metadata: ${describeIssues(parsed.error)}`);
  return success(parsed.data);
}
