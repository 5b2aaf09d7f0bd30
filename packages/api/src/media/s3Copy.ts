/**
 * A server-side copy inside one bucket: the bytes never leave the object store. Used to adopt a
 * finished tus upload's object as a video's original instead of downloading it and uploading it
 * again. One CopyObject up to S3's limit for it (5 GiB); above, a multipart upload whose parts are
 * UploadPartCopy ranges of the source (at most 10,000 parts, so parts grow with the object).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';

/** S3's largest object a single CopyObject may copy. */
export const SINGLE_COPY_MAX_BYTES = 5 * 1024 ** 3;
/** Part size of a larger copy (S3: 5 MiB to 5 GiB a part, 10,000 parts at most). */
export const COPY_PART_BYTES = 512 * 1024 ** 2;
const MAX_PARTS = 10_000;
const PARTS_AT_ONCE = 4;

export interface BucketCopy {
  bucket: string;
  /** Full keys in the bucket. */
  from: string;
  to: string;
  size: number;
  contentType: string;
}

/** `bucket/key` for x-amz-copy-source, each path segment URL-encoded. */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Copies `from` to `to` inside the bucket, server-side. A copy that fails half-way aborts its
 * multipart upload (no invisible parts left). `limits` only for tests of the multipart path.
 */
export async function copyWithinBucket(
  client: S3Client,
  copy: BucketCopy,
  limits: { singleMax: number; partBytes: number } = { singleMax: SINGLE_COPY_MAX_BYTES, partBytes: COPY_PART_BYTES },
): Promise<void> {
  const { bucket, from, to, size, contentType } = copy;
  const CopySource = copySource(bucket, from);
  if (size <= limits.singleMax) {
    await client.send(
      new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource, MetadataDirective: 'REPLACE', ContentType: contentType }),
    );
    return;
  }
  const partBytes = Math.max(limits.partBytes, Math.ceil(size / MAX_PARTS));
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: to, ContentType: contentType }));
  try {
    const ranges: { PartNumber: number; start: number; end: number }[] = [];
    for (let start = 0, n = 1; start < size; start += partBytes, n++)
      ranges.push({ PartNumber: n, start, end: Math.min(start + partBytes, size) - 1 });
    const parts: { PartNumber: number; ETag: string }[] = [];
    for (let i = 0; i < ranges.length; i += PARTS_AT_ONCE) {
      const done = await Promise.all(
        ranges.slice(i, i + PARTS_AT_ONCE).map(async ({ PartNumber, start, end }) => {
          const res = await client.send(
            new UploadPartCopyCommand({
              Bucket: bucket,
              Key: to,
              UploadId,
              PartNumber,
              CopySource,
              CopySourceRange: `bytes=${start}-${end}`,
            }),
          );
          return { PartNumber, ETag: res.CopyPartResult?.ETag ?? '' };
        }),
      );
      parts.push(...done);
    }
    await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: to, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (err) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: to, UploadId })).catch(() => {});
    throw err;
  }
}
