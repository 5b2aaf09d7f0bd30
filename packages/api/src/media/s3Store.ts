/**
 * The S3-compatible media store (`MEDIA_STORE=s3://BUCKET[/PREFIX]`): AWS S3, Ceph RADOS Gateway,
 * MinIO and the like, through the AWS SDK v3. Objects are `{PREFIX}/{key}` for the keys of
 * storage.ts. Scratch files stay on this process's disk only while an upload or a job runs: a
 * stored file is uploaded (multipart for large ones) and its local copy removed; ffmpeg reads an
 * original through a short-lived presigned URL; a transcoded ladder is uploaded from its staging
 * folder, playlists last, then the staging folder and any object of an earlier ladder go. A finished
 * tus upload (an object of the same bucket) becomes an original by a server-side copy (s3Copy.ts).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Env } from '../config/env.js';
import { ingestMarker, scratchPath } from './localStore.js';
import { copyWithinBucket } from './s3Copy.js';
import { checkedKey, checkedVideoId, contentTypeOf, type MediaStorage, MediaStoreError, transcodeScratchDir } from './storage.js';

/** Parts of a multipart upload, and how many go at once. */
const PART_BYTES = 16 * 1024 * 1024;
const UPLOAD_CONCURRENCY = 4;
/** HLS files uploaded at once when a ladder is published. */
const PUBLISH_CONCURRENCY = 8;

export interface S3Location {
  bucket: string;
  /** '' or a prefix ending in '/'. */
  prefix: string;
}

/** `s3://bucket/some/prefix` → { bucket, prefix: 'some/prefix/' }. */
export function parseMediaStore(value: string): S3Location {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(value);
  if (!m?.[1]) throw new MediaStoreError(`MEDIA_STORE: ${value} is not s3://BUCKET[/PREFIX]`, 'config');
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: m[1], prefix: prefix ? `${prefix}/` : '' };
}

type S3Env = Pick<
  Env,
  | 'MEDIA_STORE'
  | 'AWS_ENDPOINT_URL_S3'
  | 'AWS_ENDPOINT_URL'
  | 'AWS_REGION'
  | 'AWS_ACCESS_KEY_ID'
  | 'AWS_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
  | 'DATA_DIR'
>;

/** Path-style addressing when asked, or when the endpoint host cannot carry a bucket sub-domain. */
export function usesPathStyle(endpoint: string | undefined, force: boolean | undefined): boolean {
  if (force !== undefined) return force;
  if (!endpoint) return false;
  const host = new URL(endpoint).hostname;
  return host === 'localhost' || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[');
}

export function s3ClientConfig(env: S3Env): S3ClientConfig {
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  return {
    region: env.AWS_REGION ?? 'us-east-1',
    ...(endpoint && { endpoint }),
    forcePathStyle: usesPathStyle(endpoint, env.S3_FORCE_PATH_STYLE),
    ...(env.AWS_ACCESS_KEY_ID &&
      env.AWS_SECRET_ACCESS_KEY && {
        credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
      }),
    // Checksums only where the operation needs them: several S3-compatible servers reject the
    // newer default trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 5000, requestTimeout: 120_000 },
    maxAttempts: 3,
  };
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as Error).name;
  return statusOf(err) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/** A store error as the operator or the uploader should read it. */
export function explainS3Error(err: unknown, where: string): MediaStoreError {
  if (err instanceof MediaStoreError) return err;
  const status = statusOf(err);
  const name = (err as Error).name;
  if (status === 404 || name === 'NoSuchBucket' || name === 'NotFound')
    return new MediaStoreError(`MEDIA_STORE: the bucket of ${where} does not exist (create it first)`, 'config');
  if (status === 403 || status === 401 || /InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied/.test(name))
    return new MediaStoreError(
      `AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY: the object store refused these credentials for ${where} (${name})`,
      'config',
    );
  return new MediaStoreError(
    `AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL: the object store for ${where} cannot be reached (${name}: ${(err as Error).message})`,
    'unavailable',
  );
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await listFiles(path.join(dir, e.name), `${prefix}${e.name}/`)));
    else out.push(`${prefix}${e.name}`);
  }
  return out;
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

export function s3MediaStorage(env: S3Env): MediaStorage {
  const { bucket, prefix } = parseMediaStore(env.MEDIA_STORE);
  const client = new S3Client(s3ClientConfig(env));
  const location = `s3://${bucket}/${prefix}`;
  const objectKey = (key: string) => `${prefix}${checkedKey(key)}`;
  const videoPrefix = (videoId: string) => `${prefix}videos/${checkedVideoId(videoId)}/`;
  /** Runs one S3 call, turning a failure into a MediaStoreError that says what to fix. */
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw explainS3Error(err, location);
    }
  };

  async function putLocalFile(objKey: string, file: string): Promise<number> {
    const { size } = await fsp.stat(file);
    await call(() =>
      new Upload({
        client,
        params: { Bucket: bucket, Key: objKey, Body: fs.createReadStream(file), ContentType: contentTypeOf(objKey), ContentLength: size },
        partSize: PART_BYTES,
        queueSize: UPLOAD_CONCURRENCY,
        // A failed multipart upload is aborted: no invisible parts are left to bill.
        leavePartsOnError: false,
      }).done(),
    );
    return size;
  }

  async function listKeys(keyPrefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await call(() => client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, ContinuationToken: token })));
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  async function deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await call(() =>
        client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
      );
    }
  }

  /**
   * Aborts the unfinished multipart uploads under `keyPrefix`: an upload cut by a store that went
   * away (a gateway restarting) could not be aborted then, and its parts would stay, invisible to
   * listings but stored (and billed), until a lifecycle rule removed them.
   */
  async function abortUnfinished(keyPrefix: string): Promise<void> {
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await call(() => client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: keyPrefix, ...markers })));
      for (const u of page.Uploads ?? []) {
        if (!u.Key || !u.UploadId) continue;
        const { Key, UploadId } = u;
        try {
          await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId }));
        } catch (err) {
          // Aborted meanwhile (by another process's cleanup): nothing left to do.
          if (!isNotFound(err) && (err as Error).name !== 'NoSuchUpload') throw explainS3Error(err, location);
        }
      }
      if (!page.IsTruncated) return;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  return {
    kind: 's3',
    location,
    stagingPath: (suffix) => scratchPath(env.DATA_DIR, suffix),
    async putFile(videoId, name, sourcePath) {
      const key = `videos/${checkedVideoId(videoId)}/${name}`;
      try {
        const size = await putLocalFile(objectKey(key), sourcePath);
        return { key, size };
      } finally {
        await fsp.rm(sourcePath, { force: true });
      }
    },
    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return { size: Number(head.ContentLength ?? 0), mtime: head.LastModified ?? new Date(0) };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw explainS3Error(err, location);
      }
    },
    async openRead(key, range) {
      const res = await call(() =>
        client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: objectKey(key),
            ...(range && { Range: `bytes=${range.start}-${range.end}` }),
          }),
        ),
      );
      return res.Body as Readable;
    },
    async readText(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return (await res.Body?.transformToString('utf8')) ?? null;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw explainS3Error(err, location);
      }
    },
    async ffmpegInput(key, seconds) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }), { expiresIn: seconds });
    },
    async presignedUrl(key, seconds) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }), { expiresIn: seconds });
    },
    async presignedPutUrl(key, seconds) {
      const command = new PutObjectCommand({ Bucket: bucket, Key: objectKey(key), ContentType: contentTypeOf(key) });
      return getSignedUrl(client, command, { expiresIn: seconds });
    },
    async removeKeys(keys) {
      await deleteKeys(keys.map((k) => objectKey(k)));
    },
    async hlsWorkspace(videoId) {
      const dir = transcodeScratchDir(env.DATA_DIR, videoId);
      await fsp.mkdir(dir, { recursive: true });
      const hlsPrefix = `${videoPrefix(videoId)}hls/`;
      return {
        dir,
        async publish(stagingDir) {
          const files = await listFiles(stagingDir);
          const before = new Set(await listKeys(hlsPrefix));
          // Segments and sprites first, then media playlists, the master last: a player never
          // reads a playlist naming a segment that is not there yet.
          const rank = (f: string) => (f === 'master.m3u8' ? 2 : f.endsWith('.m3u8') ? 1 : 0);
          for (const level of [0, 1, 2]) {
            await inBatches(
              files.filter((f) => rank(f) === level),
              PUBLISH_CONCURRENCY,
              (f) => putLocalFile(`${hlsPrefix}${f}`, path.join(stagingDir, f)),
            );
          }
          for (const f of files) before.delete(`${hlsPrefix}${f}`);
          await deleteKeys([...before]);
          await fsp.rm(stagingDir, { recursive: true, force: true });
        },
        done: () => fsp.rm(dir, { recursive: true, force: true }),
      };
    },
    async listVideo(videoId) {
      return (await listKeys(videoPrefix(videoId))).map((k) => k.slice(prefix.length));
    },
    async remove(key) {
      await deleteKeys([objectKey(key)]);
    },
    async removeVideo(videoId) {
      await deleteKeys(await listKeys(videoPrefix(videoId)));
      await abortUnfinished(videoPrefix(videoId));
    },
    beginIngest: (videoId) => ingestMarker(env.DATA_DIR, videoId),
    async check() {
      await call(() => client.send(new HeadBucketCommand({ Bucket: bucket })));
    },
    bucketObject(bucketKey) {
      return {
        url: (seconds) => getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: bucketKey }), { expiresIn: seconds }),
        async copyTo(videoId, name, size) {
          const key = `videos/${checkedVideoId(videoId)}/${name}`;
          await call(() =>
            copyWithinBucket(client, { bucket, from: bucketKey, to: objectKey(key), size, contentType: contentTypeOf(key) }),
          );
          return { key, size };
        },
      };
    },
  };
}
