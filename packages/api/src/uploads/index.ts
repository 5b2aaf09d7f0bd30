/**
 * The resumable uploads module: tus 1.0 (https://tus.io/protocols/resumable-upload) at
 * `/api/admin/uploads`, served by @tus/server with the file store. Any tus client (tus-js-client
 * in the desktop console, Uppy, the tus CLI tools) can upload; beside it, the single-request
 * multipart upload of the web admin (POST /api/admin/upload-video, upload.route.ts). Both end in
 * the catalog's `ingestVideoFile`.
 *
 * - Extensions: creation, creation-with-upload, creation-defer-length, termination, expiration.
 *   (The file store offers no checksum or concatenation.)
 * - Admin-only: POST, HEAD, PATCH, DELETE and GET need an admin bearer token (401 / 403);
 *   OPTIONS (discovery) is open. An upload is its creator's: another admin gets 404 on it.
 * - `Upload-Metadata` carries the video's details (uploadMetadata.ts), checked at creation: bad
 *   details are a 400 before any byte is stored; `Upload-Length` over `MAX_UPLOAD_BYTES` is a 413.
 * - When the last byte arrives the file goes through the same ingestion as the web upload
 *   (ffprobe, duration, thumbnail, `VideoUploaded`); the final PATCH answers 204 with
 *   `Upload-Video-Id`. A file that is not a video is answered 400 with the reason and removed.
 *   HEAD of a finished upload answers offset = length and `Upload-Video-Id` on any API process (the
 *   record is in the database, tusRecords.ts), so a client that lost the last answer does not send
 *   the file again; a PATCH to it is a 409 with the same headers. `GET /api/admin/uploads/{id}` answers the
 *   upload's status as JSON.
 * - With PostgreSQL, an upload's lock is a PostgreSQL advisory lock (pgLocker.ts), so every API
 *   process sharing the database respects it; with SQLite, tus's in-memory lock.
 * - Unfinished uploads expire 7 days after creation (`Upload-Expires`); a sweep at start-up and
 *   hourly removes them.
 */
import type { AppModule } from '../kernel/module.js';
import { uploadsGauges } from './gauges.js';
import { closeTusUploads, sweepTusUploads } from './tusUploads.js';
import { multipartUploadRoutes } from './upload.route.js';
import { uploadRoutes } from './uploads.routes.js';

const SWEEP_EVERY_MS = 60 * 60 * 1000;

export const uploadsModule: AppModule = {
  name: 'uploads',
  routes(api, ctx) {
    multipartUploadRoutes(api, ctx);
    uploadRoutes(api, ctx);
  },
  gauges: uploadsGauges,
  // Every process: its upload locks' connection closes with it.
  async start(ctx) {
    return { stop: () => closeTusUploads(ctx) };
  },
  // Leader only: one process sweeps a shared DATA_DIR.
  background(ctx) {
    const run = () =>
      sweepTusUploads(ctx)
        .then((n) => n && ctx.logger.info({ count: n }, 'expired uploads removed'))
        .catch((err) => ctx.logger.error({ err }, 'upload sweep failed'));
    void run();
    const timer = setInterval(run, SWEEP_EVERY_MS);
    timer.unref();
    return {
      async stop() {
        clearInterval(timer);
      },
    };
  },
};
