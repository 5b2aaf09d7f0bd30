/**
 * The tus store on the object store (`MEDIA_STORE=s3://…`): @tus/s3-store, which brings the AWS SDK,
 * loaded by tusUploads.ts only when the site's media is in a bucket.
 */
import { S3Store } from '@tus/s3-store';
import type { AppContext } from '../kernel/context.js';
import { parseMediaStore, s3ClientConfig } from '../media/index.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { UPLOAD_EXPIRY_MS } from './tusRecords.js';

/**
 * @tus/s3-store, extended through its public and protected members (no private internal is
 * touched). Its keys are whole bucket keys (`PREFIX/tus/{id}`, see `tusKeys`), so it needs no view
 * of the bucket through a prefix; two things it does not do for a shared bucket are added here:
 * - `deleteExpired` (tus's expiry sweep) lists only the multipart uploads under this site's
 *   `PREFIX/tus/`: the base class lists every one in the bucket, and would abort other sites' uploads.
 * - `remove` removes the upload's objects whatever its multipart upload's state: the base class
 *   aborts that first and gives up when it is already completed (a finished tus upload), leaving
 *   `{key}` and `{key}.info` behind.
 */
export class CompletingS3Store extends S3Store {
  constructor(
    options: ConstructorParameters<typeof S3Store>[0],
    /** Where this site's tus objects live in the bucket (`PREFIX/tus/`). */
    readonly keyPrefix: string,
    private readonly clock: Clock,
  ) {
    super(options);
  }

  override async remove(key: string): Promise<void> {
    await super.remove(key).catch(() => {});
    await this.client.deleteObjects({
      Bucket: this.bucket,
      Delete: { Objects: [{ Key: key }, { Key: this.infoKey(key) }, { Key: this.partKey(key, true) }], Quiet: true },
    });
    await this.clearCache(key);
  }

  /** This site's multipart uploads begun more than the expiry ago go, with their objects; returns how many. */
  override async deleteExpired(): Promise<number> {
    if (this.getExpiration() === 0) return 0;
    const begunBefore = this.clock.now().getTime() - this.getExpiration();
    let removed = 0;
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await this.client.listMultipartUploads({ Bucket: this.bucket, Prefix: this.keyPrefix, ...markers });
      for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
        if (!Key?.startsWith(this.keyPrefix) || !Initiated || Initiated.getTime() > begunBefore) continue;
        // By the listed id first: an upload whose `.info` is gone is aborted too (remove() finds it by `.info`).
        await this.client.abortMultipartUpload({ Bucket: this.bucket, Key, UploadId }).catch(() => {});
        await this.remove(Key);
        removed++;
      }
      if (!page.IsTruncated) return removed;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  /** Removes what an upload begun before the `PREFIX/tus/` layout left at the bucket root (by its id only, never by listing the root). */
  async removeLegacy(id: string): Promise<void> {
    const open = await this.client.listMultipartUploads({ Bucket: this.bucket, Prefix: id });
    for (const u of open.Uploads ?? [])
      if (u.Key === id) await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: u.UploadId });
    await this.client.deleteObjects({
      Bucket: this.bucket,
      Delete: { Objects: [{ Key: id }, { Key: `${id}.info` }, { Key: `${id}.part` }], Quiet: true },
    });
  }
}

/**
 * The tus store on the object store for a site's configuration: keys under `PREFIX/tus/` (the
 * caller names uploads with `tusKeys(tusKeyPrefix(…)).storeKey`), unfinished uploads expiring after
 * `expiryMs` (tests pass a shorter one to sweep at once).
 */
export function createTusS3Store(env: AppContext['env'], expiryMs = UPLOAD_EXPIRY_MS, clock: Clock = systemClock): CompletingS3Store {
  return new CompletingS3Store(
    {
      // S3's smallest multipart part; a smaller PATCH waits in `{key}.part` until more comes.
      partSize: 8 * 1024 * 1024,
      expirationPeriodInMilliseconds: expiryMs,
      s3ClientConfig: { bucket: parseMediaStore(env.MEDIA_STORE).bucket, ...s3ClientConfig(env) },
    },
    tusKeyPrefix(env.MEDIA_STORE),
    clock,
  );
}

/** The bucket-relative prefix of a site's tus objects: `PREFIX/tus/` (or `tus/` without a prefix). */
export const tusKeyPrefix = (mediaStore: string) => `${parseMediaStore(mediaStore).prefix}tus/`;
