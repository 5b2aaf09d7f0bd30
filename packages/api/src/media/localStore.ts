/**
 * The local-disk media store, rooted at `DATA_DIR/media` (the embedded default): files move in by
 * rename, ffmpeg reads them in place, and the transcoder swaps a finished ladder in by one rename.
 */

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { checkedKey, checkedVideoId, type MediaStorage, MediaStoreError, stagingOwner } from './storage.js';

/**
 * Bytes read from disk at a time when Node sends a file itself. Four times Node's 64 KiB default:
 * a 1 MiB player range costs 4 reads and writes instead of 16 (bench/media-nginx.mjs, Node direct,
 * median of 3 rounds: 266 → 601 MB/s), for up to 256 KiB held per response in flight.
 */
const READ_CHUNK_BYTES = 256 * 1024;

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await fsp.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fsp.copyFile(from, to);
    await fsp.unlink(from);
  }
}

/** A fresh scratch file path under `{dataDir}/media/incoming`, named after its owner process. */
export async function scratchPath(dataDir: string, suffix = '.part'): Promise<string> {
  const dir = path.resolve(dataDir, 'media', 'incoming');
  await fsp.mkdir(dir, { recursive: true });
  return path.join(dir, `${stagingOwner(process.pid)}.${Date.now().toString(36)}-${randomBytes(8).toString('hex')}${suffix}`);
}

/** An ingest marker in the scratch area, removed by the returned function. */
export async function ingestMarker(dataDir: string, videoId: string): Promise<() => Promise<void>> {
  const marker = await scratchPath(dataDir, `.${checkedVideoId(videoId)}.ingest`);
  await fsp.writeFile(marker, '', { flag: 'wx' });
  return () => fsp.rm(marker, { force: true });
}

async function listFiles(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) out.push(...(await listFiles(path.join(dir, e.name), `${prefix}${e.name}/`)));
    else out.push(`${prefix}${e.name}`);
  }
  return out;
}

/** The local-disk adapter rooted at `${dataDir}/media`. */
export function localMediaStorage(dataDir: string): MediaStorage {
  const root = path.resolve(dataDir, 'media');
  const resolveKey = (key: string): string => path.join(root, checkedKey(key));
  const videoDir = (videoId: string): string => path.join(root, 'videos', checkedVideoId(videoId));

  return {
    kind: 'local',
    location: root,
    stagingPath: (suffix) => scratchPath(dataDir, suffix),
    async putFile(videoId, name, sourcePath) {
      const key = `videos/${videoId}/${name}`;
      const target = resolveKey(key);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await moveFile(sourcePath, target);
      const { size } = await fsp.stat(target);
      return { key, size };
    },
    async stat(key) {
      const file = resolveKey(key);
      try {
        const s = await fsp.stat(file);
        return s.isFile() ? { size: s.size, mtime: s.mtime } : null;
      } catch {
        return null;
      }
    },
    async openRead(key, range) {
      const stream = fs.createReadStream(resolveKey(key), {
        highWaterMark: READ_CHUNK_BYTES,
        ...(range && { start: range.start, end: range.end }),
      });
      // Fail here (a missing file) rather than mid-response.
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
      return stream;
    },
    async readText(key) {
      const file = resolveKey(key);
      try {
        return await fsp.readFile(file, 'utf8');
      } catch {
        return null;
      }
    },
    async ffmpegInput(key) {
      return resolveKey(key);
    },
    async presignedUrl(key) {
      checkedKey(key);
      return null;
    },
    async presignedPutUrl(key) {
      checkedKey(key);
      return null;
    },
    async removeKeys(keys) {
      for (const key of keys) await fsp.rm(resolveKey(key), { force: true });
    },
    async hlsWorkspace(videoId) {
      const dir = videoDir(videoId);
      await fsp.mkdir(dir, { recursive: true });
      return { dir, done: async () => {} };
    },
    async listVideo(videoId) {
      return listFiles(videoDir(videoId), `videos/${videoId}/`);
    },
    async remove(key) {
      await fsp.rm(resolveKey(key), { force: true });
    },
    async removeVideo(videoId) {
      await fsp.rm(videoDir(videoId), { recursive: true, force: true });
    },
    beginIngest: (videoId) => ingestMarker(dataDir, videoId),
    async check() {
      try {
        await fsp.mkdir(root, { recursive: true });
        await fsp.access(root, fs.constants.W_OK);
      } catch (err) {
        throw new MediaStoreError(`DATA_DIR: the media folder ${root} is not writable (${(err as Error).message})`, 'config');
      }
    },
  };
}
