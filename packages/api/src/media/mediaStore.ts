/**
 * The media store a process's environment names (`MEDIA_STORE`): the local disk under `DATA_DIR`
 * or an S3 bucket. The app context opens it once (`ctx.media`); `pnpm cli media copy`, backup and
 * restore open one for any location (a `--to` directory or bucket) the same way. The S3 store (and
 * with it the AWS SDK, the largest package a local-disk site would otherwise load and never use) is
 * loaded only when the store is a bucket.
 */
import type { Env } from '../config/env.js';
import { localMediaStorage } from './localStore.js';
import type { S3Env } from './s3Config.js';
import type { MediaStorage } from './storage.js';

export type MediaStoreEnv = S3Env & Pick<Env, 'DATA_DIR'>;

/** The store `env.MEDIA_STORE` names: `local` (the disk under `env.DATA_DIR`) or `s3://BUCKET[/PREFIX]`. */
export async function openMediaStore(env: Omit<MediaStoreEnv, 'MEDIA_STORE'> & { MEDIA_STORE?: string }): Promise<MediaStorage> {
  const store = env.MEDIA_STORE ?? 'local';
  if (store === 'local') return localMediaStorage(env.DATA_DIR);
  const { s3MediaStorage } = await import('./s3Store.js');
  return s3MediaStorage({ ...env, MEDIA_STORE: store });
}
