/**
 * The tus 1.0 server behind `/api/admin/uploads` (see index.ts for the protocol as we serve it).
 *
 * Disk layout under `DATA_DIR/uploads/` (the local store):
 *   tus/{id}         the bytes received so far (its length is the upload's offset)
 *   tus/{id}.json    tus's record of the upload: declared size, metadata, creation date
 * Files, so several API processes on one shared DATA_DIR see the same uploads.
 *
 * Every upload also has a row in the database (`tus_uploads`, tusRecords.ts): written at creation,
 * and completed with `{ videoId, size, completedAt }` in the transaction that records the video, so
 * a client that lost the last answer learns the video id from HEAD on any process instead of
 * sending the file again, and the unfinished ones are counted across processes (the
 * `uploads_in_progress{kind="tus"}` gauge).
 *
 * With an object store (MEDIA_STORE=s3://BUCKET/PREFIX) the bytes received so far go to the bucket
 * instead (@tus/s3-store: an S3 multipart upload per tus upload, objects `PREFIX/tus/{id}`,
 * `PREFIX/tus/{id}.info`, `PREFIX/tus/{id}.part` while it runs), so any API process can continue an
 * upload another one began, with no shared disk. A complete upload is probed through a presigned
 * URL, copied server-side to `videos/{videoId}/` as the original (CopyObject; UploadPartCopy above
 * 5 GiB), and its tus objects removed: its bytes never come back to an API process.
 * The tus store knows each upload by its key `PREFIX/tus/{id}`, given through @tus/server's public
 * naming options (`tusKeys`); URLs, rows and logs keep the short `{id}`, and a URL naming anything
 * but an id of ours names no upload. Its expiry sweep lists only the multipart uploads under
 * `PREFIX/tus/` (CompletingS3Store), so sites sharing a bucket under different prefixes neither
 * see nor abort each other's uploads. Uploads begun before that layout (no owner, objects at the
 * bucket root) cannot be continued; this site's sweep removes their root objects by the ids of its
 * own `tus_uploads` rows once they expire.
 * Only the libraries' public options and protected members are used: no private internal is patched.
 *
 * Each upload belongs to the admin who created it (`tus_uploads.created_by`, migration 011): HEAD,
 * PATCH, DELETE and GET of another admin's upload answer 404, as for an upload that does not exist.
 * A row without an owner (created before the owner was recorded) stays open to every admin.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { type DataStore, Server, type Upload } from '@tus/server';

import { ingestVideoFile, validateDetails } from '../catalog/index.js';
import { idSchema } from '../http/validate.js';
import type { AppContext } from '../kernel/context.js';
import { explainS3Error, MEDIA_STORE_UNAVAILABLE, MediaStoreError } from '../media/index.js';
import { type AppError, appError } from '../shared/errors.js';
import { createPgLocker } from './pgLocker.js';
import {
  dropRecord,
  expiredRecords,
  type FinishedUpload,
  finishedRecord,
  forgetUnfinished,
  recordCreated,
  recordFinished,
  UPLOAD_EXPIRY_MS,
  UploadAlreadyFinished,
} from './tusRecords.js';
import type { CompletingS3Store } from './tusS3Store.js';
import { parseUploadMetadata } from './uploadMetadata.js';

export const UPLOADS_PATH = '/api/admin/uploads';
export { UPLOAD_EXPIRY_MS } from './tusRecords.js';
/** The header on the last PATCH (and on HEAD of a finished upload) naming the new video. */
export const VIDEO_ID_HEADER = 'Upload-Video-Id';

export interface UploadActor {
  adminId: string;
  requestId: string | null;
}

export type { FinishedUpload } from './tusRecords.js';

/**
 * A tus hook error: @tus/server answers with this status and body. The body is the refusal's
 * `{ error, code }`, which the route's envelope (uploads.routes.ts `asEnvelope`) keeps.
 */
class TusAnswer {
  readonly status_code: number;
  readonly body: string;
  constructor(error: AppError) {
    this.status_code = error.status;
    this.body = JSON.stringify({ error: error.message, code: error.code });
  }
}

export interface TusUploads {
  server: Server;
  /** The upload as the tus store has it (offset, size, metadata), by its short id; undefined if there is none. */
  upload(id: string): Promise<Upload | undefined>;
  /**
   * Passes a request of `actor` (the admin the route admitted) to tus; records a created upload (201)
   * or forgets a terminated one (204), and ingests one its bytes completed.
   */
  handle(req: Request, actor: UploadActor): Promise<Response>;
  finished(id: string): Promise<FinishedUpload | undefined>;
  /** Ingests a complete upload once, whoever asks (the last PATCH, or a HEAD after a lost answer). */
  finish(id: string, actor: UploadActor): Promise<FinishedUpload>;
  /** Removes expired unfinished uploads and old completion records; returns how many went. */
  sweep(): Promise<number>;
  /** Closes the upload locks' connection (PostgreSQL). */
  close(): Promise<void>;
}

/**
 * How an upload is named: by its short id (`ctx.ids.next()`) in its URL, its `tus_uploads` row, the
 * media store's `uploadedObject`, logs and headers; by its store key in the tus store, which
 * @tus/server's naming options give it (`namingFunction`, `generateUrl`, `getFileIdFromRequest`):
 * `PREFIX/tus/{id}` in the bucket, `{id}` in `DATA_DIR/uploads/tus`. The two functions below are the
 * only conversions, used where we call the store and in tus's hooks (`upload.id` is the store key).
 */
export interface TusKeys {
  storeKey(id: string): string;
  shortId(key: string): string;
}

export function tusKeys(prefix: string): TusKeys {
  return {
    storeKey: (id) => `${prefix}${id}`,
    shortId(key) {
      if (!key.startsWith(prefix)) throw new Error(`tus store key outside this site's prefix: ${key}`);
      return key.slice(prefix.length);
    },
  };
}

/**
 * The upload a tus request names: the path's last segment after `/api/admin/uploads/`, in the shape
 * of the ids we issue (which has no `/`, `\`, `.`, `%` or NUL, so no encoded `..%2F` nor another
 * prefix's key gets through), as its store key. Anything else names no upload (tus answers 404).
 */
function storeKeyInUrl(req: Request, keys: TusKeys): string | undefined {
  const { pathname } = new URL(req.url);
  if (!pathname.startsWith(`${UPLOADS_PATH}/`)) return undefined;
  const id = pathname.slice(UPLOADS_PATH.length + 1);
  return idSchema.safeParse(id).success ? keys.storeKey(id) : undefined;
}

export function uploadDirs(dataDir: string) {
  const root = path.join(dataDir, 'uploads');
  return { root, tus: path.join(root, 'tus') };
}

/**
 * Where tus keeps the bytes received so far: beside the site's media (`MediaStorage.uploadedObject`
 * reads them there) — the bucket's `PREFIX/tus/` when MEDIA_STORE is an object store, else
 * `DATA_DIR/uploads/tus`. The one place the upload module reads MEDIA_STORE: it picks the tus library's store.
 */
async function tusDataStore(
  ctx: AppContext,
  dirs: ReturnType<typeof uploadDirs>,
): Promise<{ store: DataStore; s3Store: CompletingS3Store | null; keys: TusKeys }> {
  if (ctx.env.MEDIA_STORE === 'local') {
    // FileStore's constructor creates its directory with a callback mkdir whose error it throws from
    // the callback: an uncaught exception. Made here first, synchronously, a failure (DATA_DIR
    // unwritable) is thrown to the caller, and FileStore's mkdir finds the directory. But that mkdir
    // still finishes a few event-loop turns later (EEXIST, then a stat): DATA_DIR removed in between
    // is an uncaught ENOENT (a test tearing down at once, the docs figures removing their throwaway
    // DATA_DIR; no public option of FileStore avoids it). So the store is made at the first tus
    // request or sweep with something to sweep (`tusUploadsOf` in the routes, `sweepTusUploads`),
    // never by building the app or starting a server. The race remains for a DATA_DIR removed within
    // those turns after the first tus request, which a request's own turns cover in practice.
    fs.mkdirSync(dirs.tus, { recursive: true, mode: 0o777 });
    const store = new FileStore({ directory: dirs.tus, expirationPeriodInMilliseconds: UPLOAD_EXPIRY_MS });
    return { store, s3Store: null, keys: tusKeys('') };
  }
  // @tus/s3-store (and the AWS SDK) only for a site whose media is in a bucket.
  const { createTusS3Store } = await import('./tusS3Store.js');
  const s3Store = createTusS3Store(ctx.env, UPLOAD_EXPIRY_MS, ctx.clock);
  return { store: s3Store, s3Store, keys: tusKeys(s3Store.keyPrefix) };
}

type Dirs = ReturnType<typeof uploadDirs>;

/**
 * Ingestion of complete uploads: once per upload whoever asks (the request whose bytes completed it,
 * or a HEAD after a lost answer), on this process or another (the completion record commits with
 * the video). Its refusals are `TusAnswer`s.
 */
function createIngestion(ctx: AppContext, store: DataStore, keys: TusKeys, dirs: Dirs) {
  const { storeKey } = keys;
  const finishing = new Map<string, Promise<FinishedUpload>>();
  const finished = (id: string) => finishedRecord(ctx.db, id);

  /** The upload's bytes and tus record go (its database row is the caller's business). */
  async function removeUpload(id: string): Promise<void> {
    await store.remove(storeKey(id)).catch(() => {});
    await fsp.rm(path.join(dirs.tus, id), { force: true });
    await fsp.rm(path.join(dirs.tus, `${id}.json`), { force: true });
  }

  /** An upload refused at ingestion: nothing of it stays, not even its row. */
  async function discardUpload(id: string): Promise<void> {
    await removeUpload(id);
    await forgetUnfinished(ctx.db, id).catch((err) => ctx.logger.warn({ err, uploadId: id }, 'could not forget a refused upload'));
  }

  /** The video made of a complete upload, or the refusal of its bytes or details. */
  async function ingest(id: string, actor: UploadActor): Promise<FinishedUpload> {
    const earlier = await finished(id);
    if (earlier) return earlier;
    const upload = await store.getUpload(storeKey(id));
    if (upload.size === undefined || upload.offset !== upload.size)
      throw new TusAnswer(appError('upload.incomplete', 'The upload is not complete yet'));
    const meta = parseUploadMetadata(upload.metadata);
    if (!meta.ok) {
      await discardUpload(id);
      throw new TusAnswer(meta.error);
    }
    const { filename, thumbnailAtSeconds, ...details } = meta.value;
    let result: Awaited<ReturnType<typeof ingestVideoFile>>;
    const size = upload.size;
    let completedAt = '';
    // The bytes stay where tus put them: ffprobe reads them there, and the original is a
    // server-side copy of the tus object in the bucket, a hard link on disk (no round trip through this process).
    try {
      result = await ingestVideoFile(
        ctx,
        {
          remote: { object: ctx.media.uploadedObject(id), size },
          originalName: filename,
          ...details,
          thumbnailAtSeconds: thumbnailAtSeconds ?? null,
          actorId: actor.adminId,
          requestId: actor.requestId,
        },
        {
          // The completion record commits with the video, or neither does.
          inTransaction: (tx, videoId) => {
            completedAt = ctx.clock.now().toISOString();
            return recordFinished(tx, id, { videoId, size, completedAt });
          },
        },
      );
    } catch (err) {
      const first = await finishedByAnother(id, err);
      if (first) return first;
      // Storage or store trouble: keep the bytes, the client may ask again (HEAD finishes it).
      ctx.logger.error({ err, uploadId: id }, 'ingesting a finished upload failed');
      if (err instanceof MediaStoreError) throw new TusAnswer(appError('media.store_unavailable', MEDIA_STORE_UNAVAILABLE));
      throw new TusAnswer(appError('server.error', 'Something went wrong! Please try again later.'));
    }
    if (!result.ok) {
      const first = await finishedByAnother(id, result.error);
      if (first) return first;
    }
    if (!result.ok && result.error.code === 'media.store_unavailable') {
      // The media store is down: keep the bytes, the client asks again later (HEAD finishes it).
      throw new TusAnswer(result.error);
    }
    if (!result.ok) {
      // Not a video, unreadable…: nothing stays behind, the client gets the reason.
      await discardUpload(id);
      throw new TusAnswer(result.error);
    }
    const done: FinishedUpload = { videoId: result.videoId, size, completedAt };
    await removeUpload(id);
    ctx.logger.info({ uploadId: id, videoId: done.videoId, bytes: done.size }, 'tus upload ingested');
    return done;
  }

  /**
   * After a failed ingestion: whether another process finished the upload meanwhile — its video
   * committed first (ours rolled back, UploadAlreadyFinished), or it removed the bytes we were
   * reading. Then its video is the answer, not our failure.
   */
  async function finishedByAnother(id: string, reason: unknown): Promise<FinishedUpload | undefined> {
    const first = await finished(id).catch(() => undefined);
    if (!first) return undefined;
    const why = reason instanceof UploadAlreadyFinished ? 'its video committed first' : String(reason);
    ctx.logger.info({ uploadId: id, videoId: first.videoId, why }, 'tus upload finished by another request; its video stands');
    await removeUpload(id);
    return first;
  }

  function finish(id: string, actor: UploadActor): Promise<FinishedUpload> {
    let running = finishing.get(id);
    if (!running) {
      running = ingest(id, actor).finally(() => finishing.delete(id));
      finishing.set(id, running);
    }
    return running;
  }

  return { finished, finish, removeUpload };
}

/** The @tus/server instance: our store, naming, lock, limits and the details checked at creation. */
function createTusServer(
  ctx: AppContext,
  { store, s3Store, keys }: { store: DataStore; s3Store: CompletingS3Store | null; keys: TusKeys },
  locker: ReturnType<typeof createPgLocker> | undefined,
): Server {
  const { storeKey, shortId } = keys;
  return new Server({
    path: UPLOADS_PATH,
    datastore: store,
    ...(locker ? { locker } : {}),
    maxSize: ctx.env.MAX_UPLOAD_BYTES,
    // Same-origin web app and a desktop app: no cross-origin browser may use this endpoint.
    allowedOrigins: () => false,
    exposedHeaders: [VIDEO_ID_HEADER],
    // The object store down or restarting under a PATCH, HEAD or POST (@tus/s3-store's own calls):
    // 503 with the clear message, so tus clients retry (a 500 reads as a bug), instead of tus's 500.
    onResponseError(_req, err) {
      if (s3Store && err instanceof Error && storeUnreachable(err)) return { status_code: 503, body: MEDIA_STORE_UNAVAILABLE };
      return undefined;
    },
    // The store key for a new upload, its URL by its short id (relative, as `relativeLocation`
    // would make it), and back: see `tusKeys`.
    namingFunction: () => storeKey(ctx.ids.next()),
    generateUrl: (_req, { path: base, id: key }) => `${base}/${shortId(key)}`,
    getFileIdFromRequest: (req) => storeKeyInUrl(req, keys),
    async onUploadCreate(_req, upload) {
      // Refuse bad details before a byte is stored (the same rules as ingestion).
      const meta = parseUploadMetadata(upload.metadata);
      if (!meta.ok) throw new TusAnswer(meta.error);
      const { filename, thumbnailAtSeconds: _at, ...details } = meta.value;
      const checked = validateDetails({ ...details, originalName: filename });
      if (!checked.ok) throw new TusAnswer(checked.error);
      return {};
    },
  });
}

/**
 * The leader's sweep of expired uploads. Completion records outlive their upload by one expiry
 * period, then go; so do the rows of unfinished uploads, with whatever tus's sweep leaves: an upload
 * whose every byte arrived but that was never ingested (its process died, its client never asked
 * again) is not "expired" to tus. A row stays while its bytes cannot be removed (the store down):
 * the next sweep tries again.
 */
function createSweep(
  ctx: AppContext,
  {
    server,
    store,
    s3Store,
    keys,
    dirs,
    removeUpload,
  }: {
    server: Server;
    store: DataStore;
    s3Store: CompletingS3Store | null;
    keys: TusKeys;
    dirs: Dirs;
    removeUpload: (id: string) => Promise<void>;
  },
) {
  return async function sweep(): Promise<number> {
    let removed = 0;
    await fsp.mkdir(dirs.tus, { recursive: true });
    // tus's sweep of unfinished uploads: on the object store, this site's `PREFIX/tus/` only (CompletingS3Store).
    removed += await server.cleanUpExpiredUploads();
    for (const { id, legacy } of await expiredRecords(ctx.db, ctx.clock.now(), UPLOAD_EXPIRY_MS)) {
      const gone = await store.remove(keys.storeKey(id)).then(
        () => true,
        (err) => (err as { status_code?: number }).status_code === 404,
      );
      if (!gone) continue;
      // Begun before the `PREFIX/tus/` layout: its objects are at the bucket root, removed by id (never by listing).
      if (legacy && s3Store) {
        const left = await s3Store.removeLegacy(id).then(
          () => false,
          (err) => {
            ctx.logger.warn({ err, uploadId: id }, 'could not remove an upload begun before the tus prefix; will retry');
            return true;
          },
        );
        if (left) continue;
      }
      await removeUpload(id);
      await dropRecord(ctx.db, id);
      removed++;
    }
    return removed;
  };
}

/** The short upload id at the end of a tus URL (a `Location`, a request path). */
const idInUrl = (url: string | null) => url?.slice(url.lastIndexOf('/') + 1).split('?')[0] ?? '';

export async function createTusUploads(ctx: AppContext): Promise<TusUploads> {
  const dirs = uploadDirs(ctx.env.DATA_DIR);
  const stores = await tusDataStore(ctx, dirs);
  const { store, keys } = stores;
  // With PostgreSQL several processes may serve one upload: its lock lives in the database. Alone
  // on SQLite, tus's default in-memory lock is the whole story.
  const locker = ctx.env.DATABASE_URL ? createPgLocker(ctx.env.DATABASE_URL, { logger: ctx.logger }) : undefined;
  const { finished, finish, removeUpload } = createIngestion(ctx, store, keys, dirs);
  const server = createTusServer(ctx, stores, locker);
  const upload = (id: string) => store.getUpload(keys.storeKey(id)).catch(() => undefined);

  /**
   * A request whose bytes completed its upload (the last PATCH, or a POST with every byte): the
   * upload is ingested before the answer, which names the video (`Upload-Video-Id`) or carries the
   * refusal of its bytes or details instead of tus's 204/201.
   */
  async function finishIfComplete(res: Response, id: string, actor: UploadActor): Promise<Response> {
    const current = await upload(id);
    if (!current || current.size === undefined || current.offset !== current.size) return res;
    try {
      const done = await finish(id, actor);
      res.headers.set(VIDEO_ID_HEADER, done.videoId);
      return res;
    } catch (err) {
      if (!(err instanceof TusAnswer)) throw err;
      const headers = new Headers(res.headers);
      for (const name of ['location', 'upload-offset', 'upload-expires', 'content-length', 'content-type']) headers.delete(name);
      return new Response(err.body, { status: err.status_code, headers });
    }
  }

  async function handle(req: Request, actor: UploadActor): Promise<Response> {
    const res = await server.handleWeb(req);
    // After tus has answered: a row for an upload that exists (a failed creation leaves none). A
    // database that fails here costs the gauge one upload, not the upload itself.
    const note = (write: Promise<void>) => write.catch((err) => ctx.logger.warn({ err }, 'could not record a tus upload'));
    if (req.method === 'POST' && res.status === 201) {
      const id = idInUrl(res.headers.get('location'));
      await note(recordCreated(ctx.db, id, ctx.clock.now(), actor.adminId));
      return finishIfComplete(res, id, actor);
    }
    if (req.method === 'PATCH' && res.status === 204) return finishIfComplete(res, idInUrl(new URL(req.url).pathname), actor);
    if (req.method === 'DELETE' && res.status === 204) await note(forgetUnfinished(ctx.db, idInUrl(new URL(req.url).pathname)));
    return res;
  }

  return {
    server,
    upload,
    handle,
    finished,
    finish,
    sweep: createSweep(ctx, { server, ...stores, dirs, removeUpload }),
    close: async () => locker?.close(),
  };
}

/** An error of the object store's client that says the store could not be reached (not a refusal, not our bug). */
function storeUnreachable(err: Error): boolean {
  if (err instanceof MediaStoreError) return err.reason === 'unavailable';
  const sdk = '$metadata' in err || /^(TimeoutError|RequestTimeout|ServiceUnavailable|InternalError)$/.test(err.name);
  const network = /ECONN(REFUSED|RESET|ABORTED)|ETIMEDOUT|EPIPE|socket hang up/i.test(
    `${(err as { code?: string }).code ?? ''} ${err.message}`,
  );
  return (sdk || network) && explainS3Error(err, '').reason === 'unavailable';
}

/** Unfinished tus uploads on disk (for gauges such as "uploads in progress"). */
export async function uploadsInProgress(dataDir: string): Promise<number> {
  const names = await fsp.readdir(uploadDirs(dataDir).tus).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.json')).length;
}

/**
 * One tus server per context (the routes and the sweep share it), made when first needed: see
 * `tusDataStore` for why building the app or starting a server does not make it.
 */
const perContext = new WeakMap<AppContext, Promise<TusUploads>>();
export function tusUploadsOf(ctx: AppContext): Promise<TusUploads> {
  let t = perContext.get(ctx);
  if (!t) {
    t = createTusUploads(ctx);
    perContext.set(ctx, t);
    // One that could not be made (DATA_DIR unwritable) is tried again by the next request.
    t.catch(() => perContext.delete(ctx));
  }
  return t;
}

/** Closes the context's tus uploads (their locks' connection), if they were ever made. */
export async function closeTusUploads(ctx: AppContext): Promise<void> {
  const t = await perContext.get(ctx)?.catch(() => undefined);
  await t?.close();
}

/**
 * The leader's sweep (at start, then hourly). On the local store with nothing to sweep, no upload
 * on disk and no expired row, it does not make the tus store (see `tusDataStore`).
 */
export async function sweepTusUploads(ctx: AppContext): Promise<number> {
  const idle =
    !perContext.has(ctx) &&
    ctx.env.MEDIA_STORE === 'local' &&
    (await uploadsInProgress(ctx.env.DATA_DIR)) === 0 &&
    (await expiredRecords(ctx.db, ctx.clock.now(), UPLOAD_EXPIRY_MS)).length === 0;
  return idle ? 0 : (await tusUploadsOf(ctx)).sweep();
}
