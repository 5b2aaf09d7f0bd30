/**
 * The media store of a process, chosen by its environment (`MEDIA_STORE`): built once per data
 * directory and store, so the API, the CLI and a transcode runner made from the same context
 * factory all read and write the same place.
 */
import type { Env } from '../config/env.js';
import { localMediaStorage } from './localStore.js';
import { s3MediaStorage } from './s3Store.js';
import type { MediaStorage } from './storage.js';

const cache = new Map<string, MediaStorage>();

/** The store this environment names (`MEDIA_STORE`), built once per data directory and store. */
export function mediaStorageFor(ctx: { env: Partial<Env> & { DATA_DIR: string } }): MediaStorage {
  const kind = ctx.env.MEDIA_STORE ?? 'local';
  const id = `${ctx.env.DATA_DIR}\n${kind}\n${ctx.env.AWS_ENDPOINT_URL_S3 ?? ctx.env.AWS_ENDPOINT_URL ?? ''}\n${ctx.env.AWS_ACCESS_KEY_ID ?? ''}\n${ctx.env.AWS_SECRET_ACCESS_KEY ?? ''}`;
  let s = cache.get(id);
  if (!s) {
    s = kind === 'local' ? localMediaStorage(ctx.env.DATA_DIR) : s3MediaStorage(ctx.env as Env);
    cache.set(id, s);
  }
  return s;
}
