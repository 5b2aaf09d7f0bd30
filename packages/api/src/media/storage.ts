/**
 * Where video files and thumbnails live, behind one small interface (local disk now; an
 * S3-compatible adapter can implement the same later).
 *
 * Local layout under DATA_DIR:
 *   media/incoming/{random}.part        uploads being received (removed on failure; moved on success)
 *   media/videos/{videoId}/video.{ext}  the video file, as uploaded (ext from its probed container)
 *   media/videos/{videoId}/thumbnail.{jpg|png|webp}
 *
 * Keys stored in events and read models are the relative paths `videos/{videoId}/{name}`. A key is
 * checked against a strict pattern before it is joined to the root, so nothing taken from a URL
 * can reach another path on disk.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
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
}

const KEY = /^videos\/[A-Za-z0-9_-]{1,64}\/(video|thumbnail)\.[a-z0-9]{2,5}$/;
const VIDEO_ID = /^[A-Za-z0-9_-]{1,64}$/;

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
      return path.join(dir, `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}${suffix}`);
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
      return fs.createReadStream(resolveKey(key), range ? { start: range.start, end: range.end } : {});
    },
    localPath: resolveKey,
    async removeVideo(videoId) {
      await fsp.rm(videoDir(videoId), { recursive: true, force: true });
    },
  };
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
