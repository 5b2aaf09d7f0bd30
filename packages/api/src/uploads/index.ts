/**
 * The resumable uploads module: the admin desktop's bulk upload sends each video in chunks and can
 * resume an interrupted one without re-sending what the server has (tus-like, offsets in headers).
 * The single-request web upload (POST /api/admin/upload-video) is separate and unchanged.
 *
 * Protocol (all admin-only, JSON envelope answers):
 *  1. `POST /api/admin/uploads` `{ fileName, size, metadata: { title, description?, model?,
 *     accessLevel?, tags?, categories?, durationText? }, thumbnail? }` (thumbnail: base64 JPEG
 *     ≤ 2 MB) → 201 `{ uploadId, offset: 0, size, status: 'open' }`. The metadata is checked here
 *     (same rules as ingestion), and `size > MAX_UPLOAD_BYTES` is a 413, before any byte is sent.
 *  2. `HEAD` or `GET /api/admin/uploads/{id}` → `{ offset, size, status, videoId, error }` plus the
 *     `Upload-Offset` and `Upload-Length` headers. `offset` is the length of the part file on disk,
 *     so it survives a server restart and includes the bytes of a request that broke off.
 *  3. `PATCH /api/admin/uploads/{id}` with `Upload-Offset: n` and a raw
 *     `Content-Type: application/offset+octet-stream` body: appended at n and streamed to disk.
 *     409 (with `details.offset`) when n is not the server's offset or another request is writing;
 *     413 when the bytes would pass the declared size; 415 for another content type. Answers the new
 *     offset. When offset reaches size the file is ingested (ffprobe, storage, thumbnail,
 *     `VideoUploaded`) and the answer carries `videoId`; an ingestion error (not a video…) is
 *     answered with its status and message, and the upload is marked failed.
 *  4. `DELETE /api/admin/uploads/{id}` cancels and removes the partial file.
 *
 * An open upload that receives nothing for a week is canceled by the sweeper (uploadSweeper.ts).
 */
import type { AppModule } from '../module.js';
import { uploadSessionsSchema } from './uploadSessions.js';
import { startUploadSweeper } from './uploadSweeper.js';
import { uploadRoutes } from './uploads.routes.js';

export const uploadsModule: AppModule = {
  name: 'uploads',
  projections: [uploadSessionsSchema],
  routes: uploadRoutes,
  background: startUploadSweeper,
};
