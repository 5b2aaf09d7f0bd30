/**
 * Where video files, thumbnails and HLS ladders live, behind one interface with two
 * implementations: the local disk (localStore.ts, the embedded default, `DATA_DIR/media`) and
 * S3-compatible object storage (s3Store.ts, `MEDIA_STORE=s3://BUCKET[/PREFIX]`). The app context
 * builds the store once (`ctx.media`, from `openMediaStore(env)`, mediaStore.ts), so any process built
 * from the same environment (API server, CLI) reads and writes the same store. Callers never ask which
 * kind of store they have: what differs (how a ladder is published, whether a presigned URL exists,
 * where a finished upload's bytes are) is a method each implementation answers. A media copy
 * (copy/copyMedia.ts) reads one store and writes another through this same interface.
 *
 * Keys (stored in events and read models) are the relative paths `videos/{videoId}/{name}`:
 *   videos/{videoId}/video.{ext}        the video file, as uploaded (ext from its probed container)
 *   videos/{videoId}/thumbnail.{jpg|png|webp}
 *   videos/{videoId}/captions/{language}.{hash}.vtt   a caption track, cleaned WebVTT (catalog/captions.ts);
 *                                       outside `hls/`, so a new transcode keeps it
 *   videos/{videoId}/hls/…              the HLS ladder (transcode/hlsTranscoder.ts: playlists,
 *                                       encrypted segments, each rendition's progressive MP4, seek-preview sprites)
 * A key is checked against a strict pattern before use, so nothing taken from a URL can reach
 * another path on disk or another object in the bucket.
 *
 * Scratch files (an upload being received, a thumbnail being extracted, an ingest marker) always
 * live on this process's disk under `DATA_DIR/media/incoming`, whatever the store; they are
 * removed when the upload or job ends. A process killed mid-upload (SIGKILL, the OOM killer)
 * cannot clean up after itself, so staging names carry their owner (a hash of the host name and
 * the process id): at start-up `sweepStaging` removes what this host's dead processes (or a
 * previous run with the same pid, as in a container) left, without touching another live
 * process's uploads in a shared media directory.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { processAlive } from '../shared/processAlive.js';

export interface StoredFile {
  key: string;
  size: number;
}

export interface FileStat {
  size: number;
  mtime: Date;
}

/** Where the transcoder writes a ladder, and how it is published to the store. */
export interface HlsWorkspace {
  /** A local folder the transcoder stages its output in (`hls.tmp-*` inside it). */
  dir: string;
  /**
   * Publishes a finished staging folder as the video's `hls/` (replacing any earlier ladder) and
   * removes the folder: on the local disk one rename swaps the folders, on the object store the
   * files are uploaded (playlists last) and the earlier ladder's other objects removed.
   */
  publish(stagingDir: string): Promise<void>;
  /** Removes the workspace (scratch only; never the published ladder). */
  done(): Promise<void>;
}

/** A ladder a remote transcode runner sends file by file for one claim, published whole at the end. */
export interface RemoteLadder {
  /**
   * A presigned PUT URL of `file` (a path inside `hls/`) valid for `seconds`, to be sent with
   * `Content-Type: contentTypeOf(file)`; null when the runner sends the file to the server (`write`).
   */
  putUrl(file: string, seconds: number): Promise<string | null>;
  /** Stores one file the runner sent to the server; null when this store takes files only through `putUrl`. */
  write(file: string, body: Readable): Promise<number | null>;
  /**
   * Replaces the video's ladder with the files sent (`files`: every path of the new ladder); throws
   * a MissingLadderFile naming the first of `required` (or, staged locally, of `files`) that did not arrive.
   */
  publish(files: Set<string>, required: string[]): Promise<void>;
  /** Drops what was sent for this claim and not published (a lost lease, a failed attempt). */
  discard(): Promise<void>;
}

/** A remote runner's ladder lacks a file it said it sent. */
export class MissingLadderFile extends Error {
  constructor(readonly file: string) {
    super(`${file} was not uploaded`);
  }
}

/** One object of a store as a copy lists it. */
export interface ListedObject {
  /** A store key, `videos/{videoId}/…`. */
  key: string;
  size: number;
}

export interface MediaStorage {
  /** For logs, /api/health and a copy's messages: a path or `s3://bucket/prefix/`, never a credential. */
  readonly location: string;
  /** A fresh file path in this process's scratch area (`DATA_DIR/media/incoming`). */
  stagingPath(suffix?: string): Promise<string>;
  /** Moves a complete local file into the video's place as `name` ("video.mp4", "thumbnail.jpg"); the source is gone after. */
  putFile(videoId: string, name: string, sourcePath: string): Promise<StoredFile>;
  stat(key: string): Promise<FileStat | null>;
  /** Reads the whole object or the inclusive byte range [start, end]; `signal` aborts the read (a copy's Ctrl-C). */
  openRead(key: string, range?: { start: number; end: number }, signal?: AbortSignal): Promise<Readable>;
  /** A small text object (a playlist, a WebVTT), or null when it does not exist. */
  readText(key: string): Promise<string | null>;
  /** A path, or a URL valid for `seconds` (as long as the job needs), ffmpeg and ffprobe can read the object from. */
  ffmpegInput(key: string, seconds: number): Promise<string>;
  /** A presigned GET URL valid for `seconds`, or null when the store has none (the local disk: the server sends the file). */
  presignedUrl(key: string, seconds: number): Promise<string | null>;
  /** Removes these keys (missing ones are not an error): a published ladder's files no newer ladder has. */
  removeKeys(keys: string[]): Promise<void>;
  /** Where the transcoder stages the ladder of `videoId`. */
  hlsWorkspace(videoId: string): Promise<HlsWorkspace>;
  /** Where a remote runner's ladder for `videoId` (claim `claimAttempt`) arrives before it is published. */
  remoteLadder(videoId: string, claimAttempt: number): RemoteLadder;
  /** Every key stored for one video (for tests and deletion checks). */
  listVideo(videoId: string): Promise<string[]>;
  /** Removes one file (a replaced caption track); a missing file is not an error. */
  remove(key: string): Promise<void>;
  /** Removes every file of one video (missing files are not an error). */
  removeVideo(videoId: string): Promise<void>;
  /**
   * Marks `videoId` as being ingested until the returned function runs, so a crash between storing
   * its files and recording its event leaves a marker `sweepStaging` acts on.
   */
  beginIngest(videoId: string): Promise<() => Promise<void>>;
  /** Throws a MediaStoreError naming the variable to fix when the store cannot be used. */
  check(): Promise<void>;
  /**
   * A finished resumable (tus) upload's bytes where the upload module keeps them beside this store
   * (the local disk: `DATA_DIR/uploads/tus/{uploadId}`; the object store: `PREFIX/tus/{uploadId}` in
   * its bucket), to ingest without another copy through this process.
   */
  uploadedObject(uploadId: string): UploadedObject;

  // A media copy (copy/copyMedia.ts) between two stores:
  /** Every object under `videos/`, sorted by key. */
  list(): Promise<ListedObject[]>;
  /**
   * The object's size and SHA-256, or null when absent. `sha256` is null when it is not known
   * without reading the whole object from afar (an S3 object written by the server, not by a copy).
   * A local file's SHA-256 is computed only when its size is `expectSize`.
   */
  digest(key: string, expectSize: number): Promise<{ size: number; sha256: string | null } | null>;
  /** A path the object can be read from in place (local files), or null. */
  localPath(key: string): string | null;
  /**
   * Stores the complete local `file` (`size` bytes, SHA-256 `sha256`) as `key` and reads it back:
   * an object whose bytes do not hash to `sha256` is never left looking complete (a local temp file
   * is removed before any rename, an S3 object is deleted) and a CopyMismatchError is thrown.
   * `signal` aborts an upload in flight (an S3 multipart upload is aborted, its parts removed). The
   * file itself stays.
   */
  writeVerified(key: string, file: string, size: number, sha256: string, signal?: AbortSignal): Promise<void>;
}

/** A finished upload's bytes, read in place and stored as a video's original without passing through this process. */
export interface UploadedObject {
  /** A path or presigned GET URL valid for `seconds`, for ffprobe and ffmpeg. */
  url(seconds: number): Promise<string>;
  /** Copies it to the video's `name` (`video.mp4`; a server-side copy in a bucket, a hard link on disk); the upload itself stays. */
  copyTo(videoId: string, name: string, size: number): Promise<StoredFile>;
}

/** What was read back is not what was written (a media copy). */
export class CopyMismatchError extends Error {
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`${key}: ${detail}`);
  }
}

/** The store cannot be used: wrong bucket, refused credentials, unreachable endpoint. */
export class MediaStoreError extends Error {
  constructor(
    message: string,
    /** `config`: fix a variable; `unavailable`: the store is down or unreachable now. */
    readonly reason: 'config' | 'unavailable',
  ) {
    super(message);
  }
}

export const MEDIA_STORE_UNAVAILABLE = 'The media store is unavailable right now; nothing was published. Please try again later.';

const HOST_TAG = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
export const stagingOwner = (pid: number) => `${HOST_TAG}.${pid}`;
const STAGED = /^([0-9a-f]{8})\.(\d+)\./;
const INGEST_MARKER = /\.([A-Za-z0-9_-]{1,64})\.ingest$/;
/** Staged files of unknown or foreign owners are removed once this old. */
const STALE_STAGING_MS = 24 * 60 * 60 * 1000;

const KEY =
  /^videos\/[A-Za-z0-9_-]{1,64}\/((video|thumbnail)\.[a-z0-9]{2,5}|captions\/[A-Za-z0-9-]{2,35}\.[0-9a-f]{8}\.vtt|hls\/(master\.m3u8|previews\.vtt|\d{3,4}p\/(index\.m3u8|seg_\d{5}b?\.ts|progressive\.mp4)|sprites\/sprite-\d{3}\.jpg|watermark\/(ref-[ab]\.gray|ref\.json)))$/;
export const VIDEO_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidKey(key: string): boolean {
  return KEY.test(key);
}

export function checkedVideoId(videoId: string): string {
  if (!VIDEO_ID.test(videoId)) throw new Error(`Invalid video id: ${videoId}`);
  return videoId;
}

export function checkedKey(key: string): string {
  if (!isValidKey(key)) throw new Error(`Invalid media key: ${key}`);
  return key;
}

/** The MIME type an object is stored with (what a proxy or a presigned URL would answer). */
export function contentTypeOf(key: string): string {
  const ext = key.slice(key.lastIndexOf('.') + 1);
  return (
    {
      m3u8: 'application/vnd.apple.mpegurl',
      ts: 'video/mp2t',
      vtt: 'text/vtt',
      jpg: 'image/jpeg',
      png: 'image/png',
      webp: 'image/webp',
      mp4: 'video/mp4',
      webm: 'video/webm',
      mov: 'video/quicktime',
      mkv: 'video/x-matroska',
    }[ext] ?? 'application/octet-stream'
  );
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

/** A transcode's scratch folder of this process (`DATA_DIR/media/transcode/{owner}.{videoId}`), named so `sweepTranscodeScratch` can tell whose it is. */
export function transcodeScratchDir(dataDir: string, videoId: string): string {
  return path.resolve(dataDir, 'media', 'transcode', `${stagingOwner(process.pid)}.${checkedVideoId(videoId)}`);
}

/**
 * Removes the transcode scratch folders that killed runners left in `media/transcode` (a half-written
 * ladder nobody will publish: the job went to another runner after the lease). Run when a runner
 * starts, before it claims anything. Returns how many folders it removed.
 */
export async function sweepTranscodeScratch(dataDir: string): Promise<number> {
  const dir = path.resolve(dataDir, 'media', 'transcode');
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  let removed = 0;
  for (const name of names) {
    const st = await fsp.stat(path.join(dir, name)).catch(() => null);
    if (!st || !abandoned(name, st.mtimeMs, now)) continue;
    await fsp.rm(path.join(dir, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
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
