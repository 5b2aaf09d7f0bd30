/**
 * The media store a process's environment names (`MEDIA_STORE`): the local disk under `DATA_DIR`
 * or an S3 bucket. The app context opens it once (`ctx.media`); `pnpm cli media copy`, backup and
 * restore open one for any location (a `--to` directory or bucket) the same way.
 */
import type { Env } from '../config/env.js';
import { localMediaStorage } from './localStore.js';
import { s3MediaStorage } from './s3Store.js';
import type { MediaStorage } from './storage.js';

export type MediaStoreEnv = Parameters<typeof s3MediaStorage>[0] & Pick<Env, 'DATA_DIR'>;

/** The store `env.MEDIA_STORE` names: `local` (the disk under `env.DATA_DIR`) or `s3://BUCKET[/PREFIX]`. */
export function openMediaStore(env: Omit<MediaStoreEnv, 'MEDIA_STORE'> & { MEDIA_STORE?: string }): MediaStorage {
  const store = env.MEDIA_STORE ?? 'local';
  return store === 'local' ? localMediaStorage(env.DATA_DIR) : s3MediaStorage({ ...env, MEDIA_STORE: store });
}
