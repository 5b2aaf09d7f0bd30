/**
 * Where video files and thumbnails live, behind one small interface (local disk now; an
 * S3-compatible adapter can implement the same later).
 *
 * Local layout under DATA_DIR:
 *   media/incoming/{owner}.{random}.part uploads being received (removed on failure; moved on success)
 *   media/incoming/{owner}.{random}.{videoId}.ingest  marks a video whose files are being moved in
 *                                       and whose event is not yet recorded
 *   media/videos/{videoId}/video.{ext}  the video file, as uploaded (ext from its probed container)
 *   media/videos/{videoId}/thumbnail.{jpg|png|webp}
 *   media/videos/{videoId}/hls/…        the HLS ladder (transcode/hlsTranscoder.ts: playlists,
 *                                       encrypted segments, seek-preview sprites)
 *
 * Keys stored in events and read models are the relative paths `videos/{videoId}/{name}`. A key is
 * checked against a strict pattern before it is joined to the root, so nothing taken from a URL
 * can reach another path on disk.
 *
 * A process killed mid-upload (SIGKILL, the OOM killer) cannot clean up after itself, so staging names
 * carry their owner (a hash of the host name and the process id): at start-up `sweepStaging` removes
 * what this host's dead processes (or a previous run with the same pid, as in a container) left,
 * without touching another live process's uploads in a shared media directory.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';

export interface StoredFile {
  key: string;
  size: number;
}

export interface FileStat {
  size: number;
  mtime: Date;
}

export interface MediaStorage {
  /** A fresh file path in the staging area (same volume as the store, so moves are renames). */
  stagingPath(suffix?: string): Promise<string>;
  /** Moves a complete local file into the video's folder as `name` ("video.mp4", "thumbnail.jpg"). */
  putFile(videoId: string, name: string, sourcePath: string): Promise<StoredFile>;
  stat(key: string): Promise<FileStat | null>;
  /** Reads the whole object or the inclusive byte range [start, end]. */
  createReadStream(key: string, range?: { start: number; end: number }): Readable;
  /** A path ffmpeg can read (the local adapter's file itself). */
  localPath(key: string): string;
  /** Removes every file of one video (missing files are not an error). */
  removeVideo(videoId: string): Promise<void>;
  /**
   * Marks `videoId` as being ingested until the returned function runs, so a crash between moving
   * its files in and recording its event leaves a marker `sweepStaging` acts on.
   */
  beginIngest(videoId: string): Promise<() => Promise<void>>;
}

const HOST_TAG = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
const OWNER = (pid: number) => `${HOST_TAG}.${pid}`;
const STAGED = /^([0-9a-f]{8})\.(\d+)\./;
const INGEST_MARKER = /\.([A-Za-z0-9_-]{1,64})\.ingest$/;
/** Staged files of unknown or foreign owners are removed once this old. */
const STALE_STAGING_MS = 24 * 60 * 60 * 1000;

const KEY =
  /^videos\/[A-Za-z0-9_-]{1,64}\/((video|thumbnail)\.[a-z0-9]{2,5}|hls\/(master\.m3u8|previews\.vtt|\d{3,4}p\/(index\.m3u8|seg_\d{5}\.ts)|sprites\/sprite-\d{3}\.jpg))$/;
const VIDEO_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Bytes read from disk at a time when Node sends a file itself. Four times Node's 64 KiB default:
 * a 1 MiB player range costs 4 reads and writes instead of 16 (bench/media-nginx.mjs, Node direct,
 * median of 3 rounds: 266 → 601 MB/s), for up to 256 KiB held per response in flight.
 */
const READ_CHUNK_BYTES = 256 * 1024;

export function isValidKey(key: string): boolean {
  return KEY.test(key);
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await fsp.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fsp.copyFile(from, to);
    await fsp.unlink(from);
  }
}

/** The local-disk adapter rooted at `${dataDir}/media`. */
export function localMediaStorage(dataDir: string): MediaStorage {
  const root = path.resolve(dataDir, 'media');
  const resolveKey = (key: string): string => {
    if (!isValidKey(key)) throw new Error(`Invalid media key: ${key}`);
    return path.join(root, key);
  };
  const videoDir = (videoId: string): string => {
    if (!VIDEO_ID.test(videoId)) throw new Error(`Invalid video id: ${videoId}`);
    return path.join(root, 'videos', videoId);
  };

  return {
    async stagingPath(suffix = '.part') {
      const dir = path.join(root, 'incoming');
      await fsp.mkdir(dir, { recursive: true });
      return path.join(dir, `${OWNER(process.pid)}.${Date.now().toString(36)}-${randomBytes(8).toString('hex')}${suffix}`);
    },
    async putFile(videoId, name, sourcePath) {
      const key = `videos/${videoId}/${name}`;
      const target = resolveKey(key);
      await fsp.mkdir(videoDir(videoId), { recursive: true });
      await moveFile(sourcePath, target);
      const { size } = await fsp.stat(target);
      return { key, size };
    },
    async stat(key) {
      try {
        const s = await fsp.stat(resolveKey(key));
        return s.isFile() ? { size: s.size, mtime: s.mtime } : null;
      } catch {
        return null;
      }
    },
    createReadStream(key, range) {
      return fs.createReadStream(resolveKey(key), {
        highWaterMark: READ_CHUNK_BYTES,
        ...(range && { start: range.start, end: range.end }),
      });
    },
    localPath: resolveKey,
    async removeVideo(videoId) {
      await fsp.rm(videoDir(videoId), { recursive: true, force: true });
    },
    async beginIngest(videoId) {
      if (!VIDEO_ID.test(videoId)) throw new Error(`Invalid video id: ${videoId}`);
      const marker = await this.stagingPath(`.${videoId}.ingest`);
      await fsp.writeFile(marker, '', { flag: 'wx' });
      return () => fsp.rm(marker, { force: true });
    },
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a staged file was left by a process that can no longer finish it. */
function abandoned(name: string, mtimeMs: number, now: number): boolean {
  const owner = STAGED.exec(name);
  if (owner?.[1] === HOST_TAG) {
    const pid = Number(owner[2]);
    // Our own pid before we staged anything is a previous run's (containers reuse pid 1).
    return pid === process.pid || !processAlive(pid);
  }
  return now - mtimeMs > STALE_STAGING_MS;
}

/**
 * Removes the staged uploads that crashed processes left in `media/incoming`, and the files of any
 * video they were moving in without recording it (`isRecorded(videoId)` false). Run at start-up,
 * before the server stages anything. Returns how many staged entries it removed.
 */
export async function sweepStaging(
  storage: MediaStorage,
  dataDir: string,
  isRecorded: (videoId: string) => Promise<boolean>,
): Promise<number> {
  const dir = path.resolve(dataDir, 'media', 'incoming');
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return 0;
  }
  const now = Date.now();
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const st = await fsp.stat(file).catch(() => null);
    if (!st?.isFile() || !abandoned(name, st.mtimeMs, now)) continue;
    const videoId = INGEST_MARKER.exec(name)?.[1];
    if (videoId && !(await isRecorded(videoId))) await storage.removeVideo(videoId);
    await fsp.rm(file, { force: true });
    removed += 1;
  }
  return removed;
}

const cache = new Map<string, MediaStorage>();

/** The storage for this context's data directory. */
export function mediaStorageFor(ctx: { env: { DATA_DIR: string } }): MediaStorage {
  let s = cache.get(ctx.env.DATA_DIR);
  if (!s) {
    s = localMediaStorage(ctx.env.DATA_DIR);
    cache.set(ctx.env.DATA_DIR, s);
  }
  return s;
}
