/**
 * Where an S3-compatible media store is and how to reach it: `MEDIA_STORE=s3://BUCKET[/PREFIX]`,
 * the client's configuration from the environment, and a store error as the operator should read
 * it. Apart from the SDK on purpose: s3Store.ts (the store itself, with the AWS SDK) is loaded only
 * by a process whose store is a bucket (mediaStore.ts), while these are also needed by processes
 * that only check or name a location (the CLI's arguments, tus's key prefix).
 */
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import type { Env } from '../config/env.js';
import { MediaStoreError } from './storage.js';

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

export type S3Env = Pick<
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

export function isNotFound(err: unknown): boolean {
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
