/**
 * An S3 location as one side of a copy: objects `{PREFIX}videos/…` in a bucket, through the same
 * client settings as the server's store (s3Store.ts: AWS_* variables). Each object a copy writes
 * carries its SHA-256 in its metadata (`x-amz-meta-sha256`), which is what a re-run compares
 * (an ETag is no checksum of a multipart upload); after writing, the object is read back and
 * hashed, and deleted again if it does not match. A PUT is atomic: an interrupted one leaves no
 * object (a multipart one is aborted, or never completed).
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Env } from '../../config/env.js';
import { scratchPath } from '../localStore.js';
import { explainS3Error, parseMediaStore, s3ClientConfig } from '../s3Store.js';
import { contentTypeOf, isValidKey } from '../storage.js';
import { type CopyEndpoint, CopyMismatchError, type ListedObject, sha256OfStream } from './endpoint.js';

const PART_BYTES = 16 * 1024 * 1024;

type S3Env = Parameters<typeof s3ClientConfig>[0];

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.$metadata?.httpStatusCode === 404 || e.name === 'NotFound' || e.name === 'NoSuchKey';
}

/** `url` is `s3://BUCKET[/PREFIX]`; endpoint and credentials come from `env`'s AWS_* variables; scratch files go to `env.DATA_DIR`. */
export function s3Endpoint(url: string, env: Omit<S3Env, 'MEDIA_STORE'> & Pick<Env, 'DATA_DIR'>): CopyEndpoint {
  const { bucket, prefix } = parseMediaStore(url);
  const client = new S3Client(s3ClientConfig({ ...env, MEDIA_STORE: url }));
  const label = `s3://${bucket}/${prefix}`;
  const objectKey = (key: string) => {
    if (!isValidKey(key)) throw new Error(`Invalid media key: ${key}`);
    return `${prefix}${key}`;
  };
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw explainS3Error(err, label);
    }
  };
  return {
    label,
    async check() {
      await call(() => client.send(new HeadBucketCommand({ Bucket: bucket })));
    },
    async list() {
      const out: ListedObject[] = [];
      let token: string | undefined;
      do {
        const page = await call(() =>
          client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}videos/`, ContinuationToken: token })),
        );
        for (const o of page.Contents ?? []) {
          const key = o.Key?.slice(prefix.length);
          if (key && isValidKey(key)) out.push({ key, size: Number(o.Size ?? 0) });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async digest(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        const sha256 = head.Metadata?.sha256;
        return { size: Number(head.ContentLength ?? 0), sha256: sha256 && /^[0-9a-f]{64}$/.test(sha256) ? sha256 : null };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw explainS3Error(err, label);
      }
    },
    async read(key, signal) {
      const res = await call(() => client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }), { abortSignal: signal }));
      return res.Body as Readable;
    },
    localPath: () => null,
    async write(key, file, size, sha256, signal) {
      const Key = objectKey(key);
      const abortController = new AbortController();
      const abort = () => abortController.abort();
      signal?.addEventListener('abort', abort, { once: true });
      await call(() =>
        new Upload({
          client,
          abortController,
          params: {
            Bucket: bucket,
            Key,
            Body: fs.createReadStream(file),
            ContentLength: size,
            ContentType: contentTypeOf(key),
            Metadata: { sha256 },
          },
          partSize: PART_BYTES,
          // Parts are buffered in memory: with `--concurrency 4`, at most 4 × 2 × 16 MiB at once.
          queueSize: 2,
          leavePartsOnError: false,
        }).done(),
      ).finally(() => signal?.removeEventListener('abort', abort));
      let back: { sha256: string; size: number };
      try {
        const res = await call(() => client.send(new GetObjectCommand({ Bucket: bucket, Key }), { abortSignal: signal }));
        back = await sha256OfStream(res.Body as Readable);
      } catch (err) {
        // Interrupted before the check: the object goes, so a re-run copies it again.
        if (signal?.aborted) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key })).catch(() => {});
        throw err;
      }
      if (back.size !== size || back.sha256 !== sha256) {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key })).catch(() => {});
        throw new CopyMismatchError(key, `read back ${back.size} bytes with SHA-256 ${back.sha256}, expected ${size} bytes with ${sha256}`);
      }
    },
    scratchFile: () => scratchPath(env.DATA_DIR, '.copy'),
  };
}
