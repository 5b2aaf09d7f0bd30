/**
 * 011: each resumable (tus) upload records the admin who created it (`created_by`), so another
 * admin's HEAD, PATCH, DELETE or GET of it answers 404 (uploads/uploads.routes.ts). Rows from before
 * keep NULL: those uploads stay open to every admin until they are finished or expire (a week after
 * creation). On the object store, uploads created from here on live under `PREFIX/tus/`; the NULL
 * rows also mark the uploads whose objects are still at the bucket root, which the sweep removes by id.
 */
import type { Migration } from './types.js';

const ddl = 'ALTER TABLE tus_uploads ADD COLUMN created_by TEXT;';

export const tusUploadOwner: Migration = { id: 11, name: 'tus_upload_owner', sqlite: ddl, postgres: ddl };
