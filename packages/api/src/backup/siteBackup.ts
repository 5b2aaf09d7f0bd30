/**
 * Backup and restore of a whole site: the event store with its read models, and the media files
 * the store refers to, described by a manifest (time, head position and hash, every file's size and
 * SHA-256).
 *
 * - Embedded SQLite: SQLite's online backup API (better-sqlite3 `db.backup()`) over a connection of
 *   its own, so it runs while the server writes (WAL mode); the copy is one consistent snapshot.
 * - PostgreSQL: `pg_dump -Fc` inside a snapshot exported by a REPEATABLE READ transaction that also
 *   reads the head and the video list, so the dump, the manifest and the media list agree.
 *
 * Media is copied after the snapshot, for exactly the videos the snapshot knows: a video uploaded
 * later is not in the backup's store and so not in its media either. With an object store
 * (MEDIA_STORE=s3://…) the media is copied from the bucket only when asked (`backup --media`,
 * checksummed like `media copy`), and a restore on an object store puts it back into the bucket.
 *
 * A site on dev defaults (no TOKEN_SECRET, MFA_KEY_SECRET or DATA_KEY_SECRET in the environment, see
 * config/devDefaults.ts) keeps those secrets in DATA_DIR, and its data keys do not open without
 * them: the backup carries exactly those generated files under `dev-secrets/`, listed in the
 * manifest as `devDefaultSecrets`, and restore puts them back into DATA_DIR. A secret set in the
 * environment (production) is never written into a backup.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { allVideoIds } from '../catalog/index.js';
import { pgQueryable } from '../db/postgres.js';
import { sqliteQueryable } from '../db/sqlite.js';
import { storedHead } from '../eventstore/head.js';
import { copyMedia as copyAllMedia, type MediaStorage, openMediaStore } from '../media/index.js';

const run = promisify(execFile);

export const MANIFEST = 'manifest.json';
export const SQLITE_FILE = 'store.sqlite';
export const PG_DUMP_FILE = 'store.pgdump';

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: 'members-site-backup/1';
  createdAt: string;
  store: 'sqlite' | 'postgres';
  head: { position: number; hash: string | null };
  /** The store file (store.sqlite or store.pgdump). */
  database: ManifestFile;
  /** Media files, relative to the media directory (`videos/{id}/video.mp4`). */
  media: ManifestFile[];
  /** Where the media was copied from when the site kept it in an object store (`backup --media`). */
  mediaFrom?: string;
  /** Videos in the snapshot whose folder had gone (deleted after the snapshot) when media was copied. */
  missingMedia: string[];
  /** Generated dev-default secrets the site ran on (`dev-secrets/<file>`); absent or empty when every secret came from the environment. */
  devDefaultSecrets?: DevDefaultSecretFile[];
  durationMs: number;
}

export const DEV_SECRETS_DIR = 'dev-secrets';

export interface DevDefaultSecretFile extends ManifestFile {
  /** The environment variable it stands in for (TOKEN_SECRET, MFA_KEY_SECRET, DATA_KEY_SECRET). */
  variable: string;
  /** Always true: a generated development default, never a secret from the environment. */
  devDefault: true;
}

export class BackupError extends Error {}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function describeFile(root: string, rel: string): Promise<ManifestFile> {
  const full = path.join(root, rel);
  return { path: rel, size: (await fsp.stat(full)).size, sha256: await sha256(full) };
}

async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    return (await fsp.readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

const VIDEO_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The files of a video's folder, relative to it, sorted: the original, the thumbnail and the HLS
 * ladder under `hls/` (a transcode's staging folders `hls.tmp-*`/`hls.old-*` are not part of it).
 */
async function filesIn(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await fsp.readdir(path.join(dir, prefix), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!prefix && /^hls\.(tmp|old)-/.test(e.name)) continue;
      out.push(...(await filesIn(dir, rel)));
    } else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** Copies `media/videos/{id}/**` for each id, returning the manifest entries and the ids with no folder. */
async function copyMedia(dataDir: string, target: string, videoIds: string[]): Promise<{ files: ManifestFile[]; missing: string[] }> {
  const files: ManifestFile[] = [];
  const missing: string[] = [];
  for (const id of videoIds.filter((v) => VIDEO_ID.test(v)).sort()) {
    const from = path.join(dataDir, 'media', 'videos', id);
    let names: string[];
    try {
      names = await filesIn(from);
    } catch {
      missing.push(id);
      continue;
    }
    await fsp.mkdir(path.join(target, 'media', 'videos', id), { recursive: true });
    for (const name of names) {
      const rel = `videos/${id}/${name}`;
      try {
        await fsp.mkdir(path.dirname(path.join(target, 'media', rel)), { recursive: true });
        await fsp.copyFile(path.join(from, name), path.join(target, 'media', rel));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted after the snapshot
        throw err;
      }
      files.push(await describeFile(path.join(target, 'media'), rel));
    }
  }
  return { files, missing };
}

type Head = { position: number; hash: string | null };

/** Where the Debian PostgreSQL client tools are when they are not on PATH. */
/** The snapshot's videos from an object store into `target/media`, each object checked by SHA-256 (media/copy). */
async function copyObjectMedia(
  from: MediaStorage,
  target: string,
  videoIds: string[],
): Promise<{ files: ManifestFile[]; missing: string[] }> {
  const ids = new Set(videoIds);
  const s = await copyAllMedia(from, await openMediaStore({ DATA_DIR: target }), { only: (key) => ids.has(key.split('/')[1] as string) });
  if (s.mismatches.length)
    throw new BackupError(`media from ${from.location} did not read back as stored: ${s.mismatches.map((m) => m.key).join(', ')}`);
  await fsp.rm(path.join(target, 'media', 'incoming'), { recursive: true, force: true });
  const files: ManifestFile[] = [];
  const missing: string[] = [];
  for (const id of [...videoIds].sort()) {
    const dir = path.join(target, 'media', 'videos', id);
    if (!fs.existsSync(dir)) {
      missing.push(id);
      continue;
    }
    for (const name of await filesIn(dir)) files.push(await describeFile(path.join(target, 'media'), `videos/${id}/${name}`));
  }
  return { files, missing };
}

export function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => fs.existsSync(path.join(base, v, 'bin', name)))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length ? path.join(base, versions[0] as string, 'bin', name) : name;
}

export interface BackupSource {
  dataDir: string;
  /** PostgreSQL when set, else `${dataDir}/store.sqlite`. */
  databaseUrl?: string;
  /** The secrets the site got from dev-default files in DATA_DIR (the CLI's `fillDevDefaults` answer); only these are carried. */
  devDefaults?: { variable: string; file: string }[];
  /**
   * `skip`: the media lives in an object store (MEDIA_STORE=s3://…), backed up with the store's
   * own tools (docs/media-storage.md); the backup holds the database only.
   */
  media?: 'copy' | 'skip';
  /**
   * The object store to copy the snapshot's videos from (`backup --media` with MEDIA_STORE=s3://…):
   * checksummed like `media copy`, into the backup's `media/` folder.
   */
  mediaFrom?: MediaStorage;
}

/**
 * Backs up the site into `target` (absent or empty).
 * @example const m = await backupSite({ dataDir: env.DATA_DIR, databaseUrl: env.DATABASE_URL }, '/backups/2026-11-22')
 */
export async function backupSite(source: BackupSource, target: string): Promise<BackupManifest> {
  if (!(await isEmptyOrAbsent(target))) throw new BackupError(`The backup directory ${target} is not empty; choose a new one`);
  await fsp.mkdir(target, { recursive: true });
  const started = performance.now();
  const createdAt = new Date().toISOString();
  let head: Head;
  let videoIds: string[];
  let database: ManifestFile;
  if (source.databaseUrl) {
    ({ head, videoIds } = await pgDumpSnapshot(source.databaseUrl, path.join(target, PG_DUMP_FILE)));
    database = await describeFile(target, PG_DUMP_FILE);
  } else {
    const file = path.join(source.dataDir, SQLITE_FILE);
    if (!fs.existsSync(file)) throw new BackupError(`No embedded store at ${file}`);
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(path.join(target, SQLITE_FILE));
    } finally {
      db.close();
    }
    // The head and the videos are read from the copy itself: exactly what it holds.
    const copy = new Database(path.join(target, SQLITE_FILE), { readonly: true });
    try {
      const q = sqliteQueryable(copy);
      head = hasTable(copy, 'events') ? await storedHead(q) : { position: 0, hash: null };
      videoIds = hasTable(copy, 'videos') ? await allVideoIds(q) : [];
    } finally {
      copy.close();
    }
    database = await describeFile(target, SQLITE_FILE);
  }
  const media = source.mediaFrom
    ? await copyObjectMedia(source.mediaFrom, target, videoIds)
    : await copyMedia(source.dataDir, target, source.media === 'skip' ? [] : videoIds);
  const devDefaultSecrets = await copyDevSecrets(source, target);
  const manifest: BackupManifest = {
    format: 'members-site-backup/1',
    createdAt,
    store: source.databaseUrl ? 'postgres' : 'sqlite',
    head,
    database,
    media: media.files,
    ...(source.mediaFrom && { mediaFrom: source.mediaFrom.location }),
    missingMedia: media.missing,
    devDefaultSecrets,
    durationMs: Math.round(performance.now() - started),
  };
  await fsp.writeFile(path.join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Copies the generated dev-default secret files named by `source.devDefaults` (files in DATA_DIR only). */
async function copyDevSecrets(source: BackupSource, target: string): Promise<DevDefaultSecretFile[]> {
  const out: DevDefaultSecretFile[] = [];
  for (const d of source.devDefaults ?? []) {
    const name = path.basename(d.file);
    if (path.resolve(source.dataDir, name) !== path.resolve(d.file) || !/^dev-[a-z-]+-secret$/.test(name)) continue;
    const rel = `${DEV_SECRETS_DIR}/${name}`;
    await fsp.mkdir(path.join(target, DEV_SECRETS_DIR), { recursive: true, mode: 0o700 });
    await fsp.copyFile(d.file, path.join(target, rel), fs.constants.COPYFILE_EXCL);
    await fsp.chmod(path.join(target, rel), 0o600);
    out.push({ ...(await describeFile(target, rel)), variable: d.variable, devDefault: true });
  }
  return out;
}

function hasTable(db: Database.Database, name: string): boolean {
  return Boolean(db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name));
}

/** pg_dump in a snapshot exported by a transaction that reads the head and the videos in the same snapshot. */
async function pgDumpSnapshot(url: string, out: string): Promise<{ head: Head; videoIds: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = (await client.query<{ s: string }>('SELECT pg_export_snapshot() AS s')).rows[0]?.s as string;
    const tables = new Set(
      (
        await client.query<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema()`)
      ).rows.map((r) => r.t),
    );
    // The head and the videos through their owners' reads, in this transaction's snapshot.
    const q = pgQueryable(client);
    const head: Head = tables.has('events') ? await storedHead(q) : { position: 0, hash: null };
    const videoIds = tables.has('videos') ? await allVideoIds(q) : [];
    try {
      await run(pgTool('pg_dump'), ['-Fc', '--no-owner', '--no-acl', `--snapshot=${snapshot}`, '-f', out, url], {
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      throw new BackupError(`pg_dump failed: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
    }
    await client.query('COMMIT');
    return { head, videoIds };
  } finally {
    await client.end();
  }
}

export interface RestoreTarget {
  dataDir: string;
  /** The object store to put the backup's media into (MEDIA_STORE=s3://…) instead of DATA_DIR/media. */
  mediaTo?: MediaStorage;
  /** PostgreSQL: an empty database to `pg_restore` into. */
  databaseUrl?: string;
}

/** The manifest of the backup in `from`; a BackupError when it is not one. */
export async function readBackupManifest(from: string): Promise<BackupManifest> {
  const manifestFile = path.join(from, MANIFEST);
  if (!fs.existsSync(manifestFile)) throw new BackupError(`${from} is not a backup: it has no ${MANIFEST}`);
  const manifest = JSON.parse(await fsp.readFile(manifestFile, 'utf8')) as BackupManifest;
  if (manifest.format !== 'members-site-backup/1') throw new BackupError(`Unknown backup format: ${String(manifest.format)}`);
  return manifest;
}

/**
 * Restores a backup made by `backupSite` into an empty data directory (and, for a PostgreSQL
 * backup, an empty database), checking every file against the manifest first.
 */
export async function restoreSite(from: string, target: RestoreTarget): Promise<BackupManifest> {
  const manifest = await readBackupManifest(from);
  if (!(await isEmptyOrAbsent(target.dataDir)))
    throw new BackupError(
      `DATA_DIR ${target.dataDir} is not empty: restore only into an empty data directory (move the old one away first)`,
    );
  if (manifest.store === 'postgres' && !target.databaseUrl)
    throw new BackupError('This backup is of a PostgreSQL store: set DATABASE_URL to an empty database to restore into');
  if (manifest.store === 'sqlite' && target.databaseUrl)
    throw new BackupError('This backup is of the embedded SQLite store: unset DATABASE_URL to restore it into DATA_DIR');

  const devSecrets = manifest.devDefaultSecrets ?? [];
  for (const f of [manifest.database, ...manifest.media.map((m) => ({ ...m, path: path.join('media', m.path) })), ...devSecrets]) {
    const actual = await describeFile(from, f.path).catch(() => null);
    if (!actual || actual.size !== f.size || actual.sha256 !== f.sha256)
      throw new BackupError(`${f.path} in the backup is missing or differs from the manifest; the backup is damaged`);
  }
  await fsp.mkdir(target.dataDir, { recursive: true });
  if (manifest.store === 'sqlite') {
    await fsp.copyFile(path.join(from, SQLITE_FILE), path.join(target.dataDir, SQLITE_FILE), fs.constants.COPYFILE_EXCL);
  } else {
    await assertEmptyDatabase(target.databaseUrl as string);
    try {
      await run(
        pgTool('pg_restore'),
        ['--no-owner', '--no-acl', '--exit-on-error', '-d', target.databaseUrl as string, path.join(from, PG_DUMP_FILE)],
        {
          maxBuffer: 16 * 1024 * 1024,
        },
      );
    } catch (err) {
      throw new BackupError(`pg_restore failed: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
    }
  }
  if (target.mediaTo && manifest.media.length) {
    const keys = new Set(manifest.media.map((m) => m.path));
    const s = await copyAllMedia(await openMediaStore({ DATA_DIR: from }), target.mediaTo, { only: (key) => keys.has(key) });
    if (s.mismatches.length)
      throw new BackupError(
        `media did not read back from ${target.mediaTo.location} as in the backup: ${s.mismatches.map((m) => m.key).join(', ')}`,
      );
  }
  for (const m of target.mediaTo ? [] : manifest.media) {
    const to = path.join(target.dataDir, 'media', m.path);
    await fsp.mkdir(path.dirname(to), { recursive: true });
    await fsp.copyFile(path.join(from, 'media', m.path), to, fs.constants.COPYFILE_EXCL);
  }
  // The dev-default secrets back where the server and the CLI read them (config/devDefaults.ts).
  for (const f of devSecrets) {
    const to = path.join(target.dataDir, path.basename(f.path));
    await fsp.copyFile(path.join(from, f.path), to, fs.constants.COPYFILE_EXCL);
    await fsp.chmod(to, 0o600);
  }
  return manifest;
}

async function assertEmptyDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()`,
    );
    if (Number(rows[0]?.n) > 0) throw new BackupError('The target database is not empty: restore only into a new, empty database');
  } finally {
    await client.end();
  }
}
