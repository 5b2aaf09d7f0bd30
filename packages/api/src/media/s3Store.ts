/**
 * The S3-compatible media store (`MEDIA_STORE=s3://BUCKET[/PREFIX]`): AWS S3, Ceph RADOS Gateway,
 * MinIO and the like, through the AWS SDK v3. Objects are `{PREFIX}/{key}` for the keys of
 * storage.ts. Scratch files stay on this process's disk only while an upload or a job runs: a
 * stored file is uploaded (multipart for large ones) and its local copy removed; ffmpeg reads an
 * original through a short-lived presigned URL; a transcoded ladder is uploaded from its staging
 * folder, playlists last, then the staging folder and any object of an earlier ladder go. A finished
 * tus upload (an object of the same bucket) becomes an original by a server-side copy (s3Copy.ts).
 * As one side of a media copy, each object written carries its SHA-256 in its metadata
 * (`x-amz-meta-sha256`), which is what a re-run compares (an ETag is no checksum of a multipart
 * upload); after writing, the object is read back and hashed, and deleted again if it does not
 * match. A PUT is atomic: an interrupted one leaves no object (a multipart one is aborted).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { listFiles } from '../shared/listFiles.js';
import { sha256OfStream } from './copy/checksums.js';
import { ingestMarker, scratchPath } from './localStore.js';
import { explainS3Error, isNotFound, parseMediaStore, type S3Env, s3ClientConfig } from './s3Config.js';
import { copyWithinBucket } from './s3Copy.js';
import {
  CopyMismatchError,
  checkedKey,
  checkedVideoId,
  contentTypeOf,
  isValidKey,
  type ListedObject,
  type MediaStorage,
  MissingLadderFile,
  type RemoteLadder,
  type StoredFile,
  transcodeScratchDir,
} from './storage.js';

/** Parts of a multipart upload, and how many go at once. */
const PART_BYTES = 16 * 1024 * 1024;
const UPLOAD_CONCURRENCY = 4;
/** HLS files uploaded at once when a ladder is published. */
const PUBLISH_CONCURRENCY = 8;

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/** One bucket under one prefix, and the few calls every store operation is made of. */
type Bucket = ReturnType<typeof openBucket>;

function openBucket(env: S3Env) {
  const { bucket, prefix } = parseMediaStore(env.MEDIA_STORE);
  const client = new S3Client(s3ClientConfig(env));
  const location = `s3://${bucket}/${prefix}`;
  /** Runs one S3 call, turning a failure into a MediaStoreError that says what to fix. */
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw explainS3Error(err, location);
    }
  };
  return {
    client,
    bucket,
    prefix,
    location,
    call,
    objectKey: (key: string) => `${prefix}${checkedKey(key)}`,
    videoPrefix: (videoId: string) => `${prefix}videos/${checkedVideoId(videoId)}/`,
    presignedGet: (objKey: string, seconds: number) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: objKey }), { expiresIn: seconds }),

    /** Uploads a local file (multipart when large) as `objKey`, with `metadata`; `signal` aborts it. */
    async putLocalFile(
      objKey: string,
      file: string,
      opts: { metadata?: Record<string, string>; signal?: AbortSignal; queueSize?: number } = {},
    ) {
      const { size } = await fsp.stat(file);
      const abortController = new AbortController();
      const abort = () => abortController.abort();
      opts.signal?.addEventListener('abort', abort, { once: true });
      await call(() =>
        new Upload({
          client,
          abortController,
          params: {
            Bucket: bucket,
            Key: objKey,
            Body: fs.createReadStream(file),
            ContentType: contentTypeOf(objKey),
            ContentLength: size,
            ...(opts.metadata && { Metadata: opts.metadata }),
          },
          partSize: PART_BYTES,
          queueSize: opts.queueSize ?? UPLOAD_CONCURRENCY,
          // A failed multipart upload is aborted: no invisible parts are left to bill.
          leavePartsOnError: false,
        }).done(),
      ).finally(() => opts.signal?.removeEventListener('abort', abort));
      return size;
    },

    async listObjects(keyPrefix: string): Promise<{ key: string; size: number }[]> {
      const out: { key: string; size: number }[] = [];
      let token: string | undefined;
      do {
        const page = await call(() =>
          client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, ContinuationToken: token })),
        );
        for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: Number(o.Size ?? 0) });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out;
    },

    async deleteKeys(keys: string[]): Promise<void> {
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000);
        await call(() =>
          client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
        );
      }
    },
  };
}

const listKeys = async (b: Bucket, keyPrefix: string) => (await b.listObjects(keyPrefix)).map((o) => o.key);

/**
 * Aborts the unfinished multipart uploads under `keyPrefix`: an upload cut by a store that went
 * away (a gateway restarting) could not be aborted then, and its parts would stay, invisible to
 * listings but stored (and billed), until a lifecycle rule removed them.
 */
async function abortUnfinished(b: Bucket, keyPrefix: string): Promise<void> {
  let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
  for (;;) {
    const page = await b.call(() => b.client.send(new ListMultipartUploadsCommand({ Bucket: b.bucket, Prefix: keyPrefix, ...markers })));
    for (const u of page.Uploads ?? []) {
      if (!u.Key || !u.UploadId) continue;
      const { Key, UploadId } = u;
      try {
        await b.client.send(new AbortMultipartUploadCommand({ Bucket: b.bucket, Key, UploadId }));
      } catch (err) {
        // Aborted meanwhile (by another process's cleanup): nothing left to do.
        if (!isNotFound(err) && (err as Error).name !== 'NoSuchUpload') throw explainS3Error(err, b.location);
      }
    }
    if (!page.IsTruncated) return;
    markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
  }
}

/**
 * Uploads a finished staging folder as `hlsPrefix` (segments and sprites first, then media
 * playlists, the master last: a player never reads a playlist naming a segment that is not there
 * yet), then removes the earlier ladder's other objects and the staging folder.
 */
async function publishLadder(b: Bucket, hlsPrefix: string, stagingDir: string): Promise<void> {
  const files = await listFiles(stagingDir);
  const before = new Set(await listKeys(b, hlsPrefix));
  const rank = (f: string) => (f === 'master.m3u8' ? 2 : f.endsWith('.m3u8') ? 1 : 0);
  for (const level of [0, 1, 2]) {
    await inBatches(
      files.filter((f) => rank(f) === level),
      PUBLISH_CONCURRENCY,
      (f) => b.putLocalFile(`${hlsPrefix}${f}`, path.join(stagingDir, f)),
    );
  }
  for (const f of files) before.delete(`${hlsPrefix}${f}`);
  await b.deleteKeys([...before]);
  await fsp.rm(stagingDir, { recursive: true, force: true });
}

/** A remote runner's ladder on the object store: the runner PUTs each file to a presigned URL; publishing checks the playlists arrived and removes the earlier ladder's other objects. */
function presignedLadder(b: Bucket, videoId: string): RemoteLadder {
  const hlsPrefix = `${b.videoPrefix(videoId)}hls/`;
  const objectOf = (file: string) => b.objectKey(`videos/${videoId}/hls/${file}`);
  return {
    putUrl: (file, seconds) =>
      getSignedUrl(b.client, new PutObjectCommand({ Bucket: b.bucket, Key: objectOf(file), ContentType: contentTypeOf(file) }), {
        expiresIn: seconds,
      }),
    write: async () => null,
    async publish(files, required) {
      for (const f of required) if (!(await statObject(b, objectOf(f)))) throw new MissingLadderFile(f);
      const stale = (await listKeys(b, hlsPrefix)).filter((k) => !files.has(k.slice(hlsPrefix.length)));
      await b.deleteKeys(stale);
    },
    discard: async () => {},
  };
}

async function statObject(b: Bucket, objKey: string): Promise<{ size: number; mtime: Date; sha256: string | null } | null> {
  try {
    const head = await b.client.send(new HeadObjectCommand({ Bucket: b.bucket, Key: objKey }));
    const sha256 = head.Metadata?.sha256;
    return {
      size: Number(head.ContentLength ?? 0),
      mtime: head.LastModified ?? new Date(0),
      sha256: sha256 && /^[0-9a-f]{64}$/.test(sha256) ? sha256 : null,
    };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw explainS3Error(err, b.location);
  }
}

/** Uploads `file` as `key` with its SHA-256 in the metadata, reads it back and deletes it unless it hashes the same. */
async function writeVerifiedObject(b: Bucket, key: string, file: string, size: number, sha256: string, signal?: AbortSignal) {
  const Key = b.objectKey(key);
  // Parts are buffered in memory: with `media copy --concurrency 4`, at most 4 × 2 × 16 MiB at once.
  await b.putLocalFile(Key, file, { metadata: { sha256 }, signal, queueSize: 2 });
  let back: { sha256: string; size: number };
  try {
    const res = await b.call(() => b.client.send(new GetObjectCommand({ Bucket: b.bucket, Key }), { abortSignal: signal }));
    back = await sha256OfStream(res.Body as Readable);
  } catch (err) {
    // Interrupted before the check: the object goes, so a re-run copies it again.
    if (signal?.aborted) await b.client.send(new DeleteObjectCommand({ Bucket: b.bucket, Key })).catch(() => {});
    throw err;
  }
  if (back.size !== size || back.sha256 !== sha256) {
    await b.client.send(new DeleteObjectCommand({ Bucket: b.bucket, Key })).catch(() => {});
    throw new CopyMismatchError(key, `read back ${back.size} bytes with SHA-256 ${back.sha256}, expected ${size} bytes with ${sha256}`);
  }
}

export function s3MediaStorage(env: S3Env): MediaStorage {
  const b = openBucket(env);
  const { client, bucket, prefix, objectKey, call } = b;
  return {
    location: b.location,
    stagingPath: (suffix) => scratchPath(env.DATA_DIR, suffix),
    async putFile(videoId, name, sourcePath) {
      const key = `videos/${checkedVideoId(videoId)}/${name}`;
      try {
        return { key, size: await b.putLocalFile(objectKey(key), sourcePath) };
      } finally {
        await fsp.rm(sourcePath, { force: true });
      }
    },
    async stat(key) {
      const st = await statObject(b, objectKey(key));
      return st && { size: st.size, mtime: st.mtime };
    },
    async openRead(key, range, signal) {
      const Range = range && `bytes=${range.start}-${range.end}`;
      const res = await call(() =>
        client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key), ...(Range && { Range }) }), { abortSignal: signal }),
      );
      return res.Body as Readable;
    },
    async readText(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
        return (await res.Body?.transformToString('utf8')) ?? null;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw explainS3Error(err, b.location);
      }
    },
    ffmpegInput: (key, seconds) => b.presignedGet(objectKey(key), seconds),
    presignedUrl: (key, seconds) => b.presignedGet(objectKey(key), seconds),
    removeKeys: (keys) => b.deleteKeys(keys.map((k) => objectKey(k))),
    async hlsWorkspace(videoId) {
      const dir = transcodeScratchDir(env.DATA_DIR, videoId);
      await fsp.mkdir(dir, { recursive: true });
      return {
        dir,
        publish: (stagingDir) => publishLadder(b, `${b.videoPrefix(videoId)}hls/`, stagingDir),
        done: () => fsp.rm(dir, { recursive: true, force: true }),
      };
    },
    remoteLadder: (videoId) => presignedLadder(b, checkedVideoId(videoId)),
    listVideo: async (videoId) => (await listKeys(b, b.videoPrefix(videoId))).map((k) => k.slice(prefix.length)),
    remove: (key) => b.deleteKeys([objectKey(key)]),
    async removeVideo(videoId) {
      await b.deleteKeys(await listKeys(b, b.videoPrefix(videoId)));
      await abortUnfinished(b, b.videoPrefix(videoId));
    },
    beginIngest: (videoId) => ingestMarker(env.DATA_DIR, videoId),
    async check() {
      await call(() => client.send(new HeadBucketCommand({ Bucket: bucket })));
    },
    uploadedObject(uploadId) {
      const from = `${prefix}tus/${checkedVideoId(uploadId)}`;
      return {
        url: (seconds) => b.presignedGet(from, seconds),
        async copyTo(videoId, name, size): Promise<StoredFile> {
          const key = `videos/${checkedVideoId(videoId)}/${name}`;
          await call(() => copyWithinBucket(client, { bucket, from, to: objectKey(key), size, contentType: contentTypeOf(key) }));
          return { key, size };
        },
      };
    },
    async list() {
      const out: ListedObject[] = [];
      for (const o of await b.listObjects(`${prefix}videos/`)) {
        const key = o.key.slice(prefix.length);
        if (isValidKey(key)) out.push({ key, size: o.size });
      }
      return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    },
    async digest(key) {
      const st = await statObject(b, objectKey(key));
      return st && { size: st.size, sha256: st.sha256 };
    },
    localPath: () => null,
    writeVerified: (key, file, size, sha256, signal) => writeVerifiedObject(b, key, file, size, sha256, signal),
  };
}
