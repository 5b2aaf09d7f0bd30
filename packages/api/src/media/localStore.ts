/**
 * The local-disk media store, rooted at `DATA_DIR/media` (the embedded default): files move in by
 * rename, ffmpeg reads them in place, and the transcoder (or a remote runner's staged upload) swaps
 * a finished ladder in by one rename. As one side of a media copy, a file is written under a
 * scratch name in `DATA_DIR/media/incoming` (the same disk; a crashed copy's leftovers there are
 * swept by the server's next start, like an interrupted upload's), fsynced, hashed and only then
 * renamed into place, so an interrupted copy never leaves a partial file under its real name.
 */

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { listFiles } from '../shared/listFiles.js';
import { sha256OfFile } from './copy/checksums.js';
import {
  CopyMismatchError,
  checkedKey,
  checkedVideoId,
  isValidKey,
  type ListedObject,
  type MediaStorage,
  MediaStoreError,
  MissingLadderFile,
  type RemoteLadder,
  stagingOwner,
} from './storage.js';

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

/** Replaces `videoDir/hls` by `staging` in one rename; the earlier ladder (a retry's) goes after. */
async function swapLadder(videoDir: string, staging: string): Promise<void> {
  const final = path.join(videoDir, 'hls');
  const old = path.join(videoDir, `hls.old-${stagingOwner(process.pid)}-${randomBytes(4).toString('hex')}`);
  const hadOld = await fsp
    .rename(final, old)
    .then(() => true)
    .catch(() => false);
  await fsp.rename(staging, final);
  if (hadOld) await fsp.rm(old, { recursive: true, force: true });
}

/** A remote runner's ladder, PUT to the server file by file into `hls.tmp-{claim}-remote` beside the video's `hls/`. */
function stagedLadder(videoDir: string, claimAttempt: number): RemoteLadder {
  const staged = path.join(videoDir, `hls.tmp-${claimAttempt}-remote`);
  return {
    putUrl: async () => null,
    async write(file, body: Readable) {
      const target = path.join(staged, file);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const part = `${target}.part`;
      await pipeline(body, fs.createWriteStream(part));
      await fsp.rename(part, target);
      return (await fsp.stat(target)).size;
    },
    async publish(files) {
      for (const f of files) if (!(await fsp.stat(path.join(staged, f)).catch(() => null))) throw new MissingLadderFile(f);
      await swapLadder(videoDir, staged);
    },
    discard: () => fsp.rm(staged, { recursive: true, force: true }),
  };
}

/** Every file under `videos/` with a valid key, and its size. */
async function walk(dir: string, prefix: string, out: ListedObject[]): Promise<void> {
  for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) await walk(file, `${prefix}${e.name}/`, out);
    else if (e.isFile() && isValidKey(`${prefix}${e.name}`)) out.push({ key: `${prefix}${e.name}`, size: (await fsp.stat(file)).size });
  }
}

/** Copies `file` to `target` through a scratch file that is fsynced and hashed before the rename. */
async function writeVerifiedFile(dataDir: string, key: string, target: string, file: string, size: number, sha256: string) {
  const temp = await scratchPath(dataDir, '.copy');
  try {
    await fsp.copyFile(file, temp);
    const fh = await fsp.open(temp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    const back = await sha256OfFile(temp);
    if (back.size !== size || back.sha256 !== sha256)
      throw new CopyMismatchError(key, `read back ${back.size} bytes with SHA-256 ${back.sha256}, expected ${size} bytes with ${sha256}`);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(temp, target);
  } finally {
    await fsp.rm(temp, { force: true });
  }
}

/** A hard link (the same disk: no bytes copied), else a copy. */
async function linkOrCopy(from: string, to: string): Promise<void> {
  await fsp.rm(to, { force: true });
  await fsp.link(from, to).catch(() => fsp.copyFile(from, to));
}

/** The local-disk adapter rooted at `${dataDir}/media`. */
export function localMediaStorage(dataDir: string): MediaStorage {
  const root = path.resolve(dataDir, 'media');
  const resolveKey = (key: string): string => path.join(root, checkedKey(key));
  const videoDir = (videoId: string): string => path.join(root, 'videos', checkedVideoId(videoId));

  return {
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
      const s = await fsp.stat(resolveKey(key)).catch(() => null);
      return s?.isFile() ? { size: s.size, mtime: s.mtime } : null;
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
    readText: (key) => fsp.readFile(resolveKey(key), 'utf8').catch(() => null),
    ffmpegInput: async (key) => resolveKey(key),
    async presignedUrl(key) {
      checkedKey(key);
      return null;
    },
    async removeKeys(keys) {
      for (const key of keys) await fsp.rm(resolveKey(key), { force: true });
    },
    async hlsWorkspace(videoId) {
      const dir = videoDir(videoId);
      await fsp.mkdir(dir, { recursive: true });
      return { dir, publish: (staging) => swapLadder(dir, staging), done: async () => {} };
    },
    remoteLadder: (videoId, claimAttempt) => stagedLadder(videoDir(videoId), claimAttempt),
    listVideo: (videoId) => listFiles(videoDir(videoId), `videos/${videoId}/`).catch(() => []),
    async remove(key) {
      await fsp.rm(resolveKey(key), { force: true });
    },
    async removeVideo(videoId) {
      await fsp.rm(videoDir(videoId), { recursive: true, force: true });
    },
    beginIngest: (videoId) => ingestMarker(dataDir, videoId),
    async check() {
      try {
        await fsp.mkdir(path.join(root, 'incoming'), { recursive: true });
        await fsp.access(root, fs.constants.W_OK);
      } catch (err) {
        throw new MediaStoreError(`DATA_DIR: the media folder ${root} is not writable (${(err as Error).message})`, 'config');
      }
    },
    uploadedObject(uploadId) {
      const file = path.join(path.resolve(dataDir, 'uploads', 'tus'), checkedVideoId(uploadId));
      return {
        url: async () => file,
        async copyTo(videoId, name) {
          const key = `videos/${checkedVideoId(videoId)}/${name}`;
          const target = resolveKey(key);
          await fsp.mkdir(path.dirname(target), { recursive: true });
          await linkOrCopy(file, target);
          return { key, size: (await fsp.stat(target)).size };
        },
      };
    },
    async list() {
      const out: ListedObject[] = [];
      await walk(path.join(root, 'videos'), 'videos/', out);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async digest(key, expectSize) {
      const st = await fsp.stat(resolveKey(key)).catch(() => null);
      if (!st?.isFile()) return null;
      if (st.size !== expectSize) return { size: st.size, sha256: null };
      return { size: st.size, sha256: (await sha256OfFile(resolveKey(key))).sha256 };
    },
    localPath: resolveKey,
    writeVerified: (key, file, size, sha256) => writeVerifiedFile(dataDir, key, resolveKey(key), file, size, sha256),
  };
}
