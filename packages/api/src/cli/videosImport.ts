/**
 * `pnpm cli videos import DIR [--access free|premium|vip] [--publish] [--publish-at ISO] [--recursive] [--as EMAIL]`:
 * puts a folder of video files into the library through the same ingest as an upload
 * (catalog/ingest.ts: ffprobe with the upload formats, a thumbnail, the media store, `VideoUploaded`,
 * which the transcode queue takes). Each file is hashed (SHA-256) first: a file whose bytes were
 * imported before is skipped, so a run stopped halfway (Ctrl-C, a crash) is resumed by running it
 * again. The hash is recorded in the upload event and the `video_imports` read model
 * (catalog/imports.projection.ts) in one transaction, so a file becomes one video even when two
 * runs meet. The file is copied to staging (the ingest moves what it is given) and never changed.
 * Runs beside the site (same DATABASE_URL, MEDIA_STORE and secrets) or with it stopped.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import {
  ACCESS_LEVELS,
  type AccessLevel,
  addCaptionTrack,
  EXCLUSIVE_TO,
  findImport,
  ingestVideoFile,
  LIMITS,
  parsePublishAt,
} from '../catalog/index.js';
import { configuredAdminEmail, findUserByEmail } from '../identity/index.js';
import type { AppContext } from '../kernel/context.js';
import { closeContext, createContext, describeStore } from '../kernel/context.js';
import { MediaStoreError } from '../media/index.js';
import { allProjections } from '../wiring/modules.js';
import type { CliCommand } from './command.js';

const USAGE =
  'Usage: pnpm cli videos import DIR [--access free|premium|vip] [--publish] [--publish-at ISO] [--recursive] [--as EMAIL]\n' +
  '  Imports every video file in DIR (sub-folders too with --recursive); a file already imported (same SHA-256) is skipped.\n' +
  '  --access   access level when the file has no sidecar NAME.json saying it (default premium, as an upload)\n' +
  '  --publish  members see the videos at once (default: imported unpublished, for the admin to review and publish)\n' +
  '  --publish-at  schedule the release (ISO 8601 with an offset, e.g. 2026-12-03T09:00:00Z) when the sidecar has no publishAt:\n' +
  '             the videos are published at that time (a past time: within a minute), each plan after its releases delay\n' +
  '  --as       the admin account recorded as the uploader (default: ADMIN_EMAIL, admin@localhost in development)';

/** The names the import takes as video files: the containers the upload's ffprobe whitelist reads (media/uploadedVideoInput.ts). */
export const VIDEO_EXTENSIONS = [
  '.mp4',
  '.m4v',
  '.mov',
  '.3gp',
  '.3g2',
  '.mj2',
  '.mkv',
  '.webm',
  '.avi',
  '.ts',
  '.mts',
  '.m2ts',
  '.ogv',
  '.ogg',
  '.flv',
  '.wmv',
  '.asf',
  '.mpg',
  '.mpeg',
  '.mxf',
];
/** Caption files beside a video (`sidecarsOf`), added as its caption tracks once it is recorded. */
const CAPTION_EXTENSIONS = ['.vtt', '.srt'];

/** What a sidecar `NAME.json` may say; anything else in it is an error for that file (a typo must not pass silently). */
export const sidecarSchema = z
  .object({
    title: z.string().trim().min(1).max(LIMITS.title).optional(),
    description: z.string().max(LIMITS.description).optional(),
    accessLevel: z.enum(ACCESS_LEVELS as [AccessLevel, ...AccessLevel[]]).optional(),
    tags: z.array(z.string().trim().min(1).max(LIMITS.label)).max(LIMITS.labels).optional(),
    categories: z.array(z.string().trim().min(1).max(LIMITS.label)).max(LIMITS.labels).optional(),
    modelName: z.string().trim().max(LIMITS.model).optional(),
    /** 'annual': behind-the-scenes (annual subscribers only); null: the access level decides. */
    exclusiveTo: z
      .enum(EXCLUSIVE_TO as ['annual'])
      .nullable()
      .optional(),
    /** The scheduled release, ISO 8601 with an offset (beats `--publish-at`). */
    publishAt: z
      .string()
      .refine((t) => parsePublishAt(t).ok && t.trim() !== '', 'an ISO 8601 date-time with an offset (e.g. 2026-12-03T09:00:00Z)')
      .optional(),
  })
  .strict();
export type Sidecar = z.infer<typeof sidecarSchema>;

/**
 * A title from a file name: the extension dropped, runs of `_`, `-`, `.` and spaces made one space,
 * the first letter capitalised, cut to the title limit.
 * @example titleFromFileName('my_clip-01.mp4') // 'My clip 01'
 */
export function titleFromFileName(fileName: string): string {
  const base = path.basename(fileName, path.extname(fileName));
  const words = base.replace(/[\s_.-]+/g, ' ').trim() || base;
  return (words.charAt(0).toUpperCase() + words.slice(1)).slice(0, LIMITS.title);
}

class UsageError extends Error {}

export interface ImportArgs {
  dir: string;
  access?: AccessLevel;
  publish: boolean;
  recursive: boolean;
  as?: string;
  /** `--publish-at`: the release time of every file whose sidecar names none (normalized to UTC). */
  publishAt?: string;
}

/** The arguments, or a UsageError (exit 2). Own parser: `--publish DIR` must not read DIR as the flag's value. */
export function parseImportArgs(args: string[]): ImportArgs {
  const out: Partial<ImportArgs> & { publish: boolean; recursive: boolean } = { publish: false, recursive: false };
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--')) {
      dirs.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    if (name === 'publish' || name === 'recursive') {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    if (name !== 'access' && name !== 'as' && name !== 'publish-at') throw new UsageError(`unknown option ${a}`);
    const value = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined || value === '' || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
    if (name === 'access') {
      if (!(ACCESS_LEVELS as readonly string[]).includes(value)) throw new UsageError(`--access ${value}: one of free, premium, vip`);
      out.access = value as AccessLevel;
    } else if (name === 'publish-at') {
      const at = parsePublishAt(value);
      if (!at.ok || !at.value) throw new UsageError(`--publish-at ${value}: ${at.ok ? 'needs a value' : at.error}`);
      out.publishAt = at.value;
    } else out.as = value;
  }
  if (dirs.length !== 1) throw new UsageError(dirs.length === 0 ? 'DIR is missing' : `one DIR only (got ${dirs.join(', ')})`);
  return { ...out, dir: dirs[0] as string };
}

export interface FolderListing {
  /** Video files (by name), in name order, as paths relative to the folder. */
  videos: string[];
  /** Other files, not imported (sidecars and captions of a video are not counted). */
  ignored: string[];
}

const isVideoName = (name: string) => VIDEO_EXTENSIONS.includes(path.extname(name).toLowerCase());

/** The folder's video files (hidden entries left out), and what else is there. */
export async function listFolder(root: string, recursive: boolean): Promise<FolderListing> {
  const videos: string[] = [];
  const others: string[] = [];
  async function walk(rel: string): Promise<void> {
    const entries = await fsp.readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.name.startsWith('.')) continue;
      const p = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) {
        if (recursive) await walk(p);
      } else if (isVideoName(e.name)) videos.push(p);
      else others.push(p);
    }
  }
  await walk('');
  const stems = new Set(videos.map((v) => v.slice(0, -path.extname(v).length)));
  // NAME.json and NAME.vtt / NAME.LANG.vtt beside NAME.mp4 belong to the video.
  const belongs = (p: string) => {
    const ext = path.extname(p).toLowerCase();
    const stem = p.slice(0, -ext.length);
    if (ext === '.json') return stems.has(stem);
    if (CAPTION_EXTENSIONS.includes(ext)) return stems.has(stem) || stems.has(stem.slice(0, -path.extname(stem).length));
    return false;
  };
  return { videos, ignored: others.filter((p) => !belongs(p)) };
}

export interface Sidecars {
  /** `NAME.json`, when there is one. */
  json: string | null;
  /**
   * `NAME.vtt`, `NAME.LANG.vtt`, `.srt`: added as the video's caption tracks after it is recorded,
   * with the language from the name (`NAME.vtt`: English).
   */
  captions: string[];
}

export async function sidecarsOf(root: string, video: string): Promise<Sidecars> {
  const stem = video.slice(0, -path.extname(video).length);
  const dir = path.dirname(path.join(root, video));
  const base = path.basename(stem);
  const names = await fsp.readdir(dir);
  const json = names.includes(`${base}.json`) ? path.join(dir, `${base}.json`) : null;
  const captions = names
    .filter((n) => CAPTION_EXTENSIONS.includes(path.extname(n).toLowerCase()) && n.startsWith(`${base}.`))
    .filter((n) => {
      const inner = n.slice(base.length + 1, -path.extname(n).length);
      return inner === '' || /^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(inner);
    })
    .sort();
  return { json, captions };
}

/** The caption language a sidecar's name gives (`clip.pt-BR.srt` → `pt-BR`); none in the name: `en`. */
export function captionLanguageOf(video: string, caption: string): string {
  const base = path.basename(video, path.extname(video));
  const name = path.basename(caption);
  return name.slice(base.length + 1, -path.extname(name).length) || 'en';
}

/** Adds the caption files beside an imported video as its tracks; one line per outcome. */
async function importCaptions(
  ctx: AppContext,
  root: string,
  rel: string,
  videoId: string,
  actorId: string,
  captions: string[],
): Promise<string> {
  const added: string[] = [];
  const refused: string[] = [];
  for (const caption of captions) {
    const file = path.join(path.dirname(path.join(root, rel)), caption);
    const bytes = new Uint8Array(await fsp.readFile(file));
    const r = await addCaptionTrack(
      ctx,
      videoId,
      { bytes, language: captionLanguageOf(rel, caption) },
      { actorId, actor: 'cli:videos-import' },
    );
    if (r.ok) added.push(`${caption} as ${r.value.language}`);
    else refused.push(`${caption} not added: ${r.error.message}`);
  }
  return [added.length ? `captions ${added.join(', ')}` : '', ...refused].filter(Boolean).join('; ');
}

/** The sidecar's fields, or the reason it cannot be used (bad JSON, an unknown or invalid field). */
export async function readSidecar(file: string): Promise<{ ok: true; value: Sidecar } | { ok: false; error: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await fsp.readFile(file, 'utf8'));
  } catch (err) {
    return { ok: false, error: `${path.basename(file)}: ${(err as Error).message}` };
  }
  const r = sidecarSchema.safeParse(parsed);
  if (r.success) return { ok: true, value: r.data };
  const why = r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
  return { ok: false, error: `${path.basename(file)}: ${why}` };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** One line per file: a redrawn bar on a terminal, plain lines (at most one every 5 s per phase) in a pipe. */
class Progress {
  private lastPlain = 0;
  private drawn = false;
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty: boolean,
  ) {}
  update(label: string, phase: string, done: number, total: number): void {
    const pct = total ? Math.min(100, Math.floor((done / total) * 100)) : 100;
    if (this.tty) {
      const width = 24;
      const filled = Math.round((pct / 100) * width);
      const line = `${label} ${phase.padEnd(7)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${mib(done)}/${mib(total)}`;
      this.out.write(`\r\x1b[2K${line.slice(0, (this.out.columns || 120) - 1)}`);
      this.drawn = true;
      return;
    }
    const now = performance.now();
    if (done < total && now - this.lastPlain < 5000) return;
    this.lastPlain = done < total ? now : 0;
    this.out.write(`${label} ${phase} ${mib(done)}/${mib(total)} (${pct}%)\n`);
  }
  line(text: string): void {
    if (this.drawn) this.out.write('\r\x1b[2K');
    this.drawn = false;
    this.lastPlain = 0;
    this.out.write(`${text}\n`);
  }
}

/** Reads `file` (copying it to `copyTo` when given) and returns its SHA-256; `onBytes` sees the running count. */
async function hashFile(file: string, onBytes: (n: number) => void, signal: AbortSignal, copyTo?: string): Promise<string> {
  const hash = createHash('sha256');
  let n = 0;
  const count = (chunk: Buffer) => {
    hash.update(chunk);
    n += chunk.length;
    onBytes(n);
  };
  const input = fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
  if (copyTo) {
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        count(chunk);
        cb(null, chunk);
      },
    });
    await pipeline(input, tap, fs.createWriteStream(copyTo, { flags: 'wx' }), { signal });
  } else {
    await pipeline(
      input,
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) count(chunk);
      },
      { signal },
    );
  }
  return hash.digest('hex');
}

type Outcome = { kind: 'imported'; videoId: string } | { kind: 'skipped'; why: string } | { kind: 'failed'; why: string };

interface ImportRun {
  ctx: AppContext;
  root: string;
  opts: ImportArgs;
  actorId: string;
  progress: Progress;
  signal: AbortSignal;
}

async function importOne(run: ImportRun, rel: string, label: string): Promise<Outcome> {
  const { ctx, root, opts, progress, signal } = run;
  const file = path.join(root, rel);
  const sidecars = await sidecarsOf(root, rel);
  let sidecar: Sidecar = {};
  if (sidecars.json) {
    const r = await readSidecar(sidecars.json);
    if (!r.ok) return { kind: 'failed', why: `bad sidecar ${r.error}` };
    sidecar = r.value;
  }
  let size: number;
  try {
    const st = await fsp.stat(file);
    size = st.size;
    await fsp.access(file, fs.constants.R_OK);
  } catch (err) {
    return { kind: 'failed', why: `cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (size === 0) return { kind: 'failed', why: 'the file is empty' };
  if (size > ctx.env.MAX_UPLOAD_BYTES)
    return { kind: 'failed', why: `The video file is too large (limit ${ctx.env.MAX_UPLOAD_BYTES} bytes)` };

  // 1. The hash, to skip what was imported before without copying it.
  let sha256: string;
  try {
    sha256 = await hashFile(file, (n) => progress.update(label, 'hashing', n, size), signal);
  } catch (err) {
    if (signal.aborted) throw err;
    return { kind: 'failed', why: `cannot read it (${(err as Error).message})` };
  }
  const before = await findImport(ctx.db, sha256);
  if (before) return { kind: 'skipped', why: alreadyImported(before) };

  // 2. A copy in staging (the ingest moves the file it is given), hashed again on the way.
  const storage = ctx.media;
  const staged = await storage.stagingPath(path.extname(rel).toLowerCase());
  try {
    try {
      const again = await hashFile(file, (n) => progress.update(label, 'copying', n, size), signal, staged);
      if (again !== sha256) return { kind: 'failed', why: 'the file changed while it was being imported; run again once it is complete' };
    } catch (err) {
      if (signal.aborted) throw err;
      // Reading it worked a moment ago: most likely the staging disk (DATA_DIR) is full or not writable.
      return { kind: 'failed', why: `could not copy it to ${path.dirname(staged)} (${(err as Error).message})` };
    }
    progress.update(label, 'storing', size, size);
    // 3. The upload's own ingest.
    try {
      const result = await ingestVideoFile(ctx, {
        filePath: staged,
        originalName: rel,
        title: sidecar.title ?? titleFromFileName(rel),
        description: sidecar.description ?? null,
        model: sidecar.modelName ?? null,
        accessLevel: sidecar.accessLevel ?? opts.access ?? null,
        tags: sidecar.tags ?? null,
        categories: sidecar.categories ?? null,
        exclusiveTo: sidecar.exclusiveTo ?? null,
        publishAt: sidecar.publishAt ?? opts.publishAt ?? null,
        actorId: run.actorId,
        actor: 'cli:videos-import',
        contentSha256: sha256,
        published: opts.publish,
      });
      if (!result.ok) {
        if (result.error.code === 'media.store_unavailable') throw new MediaStoreError(result.error.message, 'unavailable');
        return { kind: 'failed', why: result.error.message };
      }
      return { kind: 'imported', videoId: result.videoId };
    } catch (err) {
      // Another run recorded the same bytes between our check and our append (the hash is a key).
      const meanwhile = await findImport(ctx.db, sha256);
      if (meanwhile) return { kind: 'skipped', why: `${alreadyImported(meanwhile)}, by another run meanwhile` };
      throw err;
    }
  } finally {
    await fsp.rm(staged, { force: true });
  }
}

function alreadyImported(r: { videoId: string; originalName: string | null; deletedAt: string | null }): string {
  const from = r.originalName ? ` from ${r.originalName}` : '';
  return `already imported as video ${r.videoId}${from}${r.deletedAt ? ' (deleted since; not imported again)' : ''}`;
}

async function importFolder(ctx: AppContext, opts: ImportArgs, actorId: string): Promise<number> {
  const root = path.resolve(opts.dir);
  const listing = await listFolder(root, opts.recursive);
  const out = process.stdout;
  const progress = new Progress(out, Boolean(out.isTTY));
  console.log(
    `Importing ${listing.videos.length} video files from ${root} (store: ${describeStore(ctx.env)}, media: ${ctx.env.MEDIA_STORE}); ` +
      `${opts.publishAt ? `published at ${opts.publishAt}` : opts.publish ? 'published at once' : 'unpublished until the admin publishes them'}`,
  );
  if (listing.ignored.length) console.log(`Not video files, left alone: ${listing.ignored.join(', ')}`);

  // Ctrl-C (or TERM): the file being hashed or copied is given up, one being recorded finishes; a second Ctrl-C exits at once.
  const stop = new AbortController();
  const interrupt = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
    progress.line('Interrupted: stopping after the current file (Ctrl-C again to quit now; run the same command again to resume)');
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  const started = performance.now();
  const counts = { imported: 0, skipped: 0, failed: 0 };
  const failures: string[] = [];
  try {
    for (const [i, rel] of listing.videos.entries()) {
      if (stop.signal.aborted) break;
      const label = `[${i + 1}/${listing.videos.length}] ${rel}`;
      let outcome: Outcome;
      try {
        outcome = await importOne({ ctx, root, opts, actorId, progress, signal: stop.signal }, rel, label);
      } catch (err) {
        if (stop.signal.aborted) break;
        // The store or the database went away: every later file would fail the same way.
        if (err instanceof MediaStoreError) {
          progress.line(`${label}: failed: ${err.message}`);
          console.error(`videos import stopped: ${err.message}. Run it again to resume.`);
          return 1;
        }
        throw err;
      }
      if (outcome.kind === 'imported') {
        const { captions } = await sidecarsOf(root, rel);
        const note = captions.length ? await importCaptions(ctx, root, rel, outcome.videoId, actorId, captions) : '';
        progress.line(`${label}: imported as video ${outcome.videoId}${note ? ` (${note})` : ''}`);
      } else if (outcome.kind === 'skipped') progress.line(`${label}: skipped, ${outcome.why}`);
      else {
        progress.line(`${label}: failed: ${outcome.why}`);
        failures.push(`${rel}: ${outcome.why}`);
      }
      counts[outcome.kind]++;
      await testPause(stop.signal);
    }
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `Imported ${counts.imported}, skipped ${counts.skipped} (already imported), failed ${counts.failed} of ${listing.videos.length} video files in ${seconds} s`,
  );
  if (counts.imported)
    console.log(
      `The transcode queue takes the new videos (a running site within a second, or at its next start)${opts.publish ? '' : '; publish them in the admin library when ready'}.`,
    );
  for (const f of failures) console.error(`FAILED ${f}`);
  if (stop.signal.aborted) {
    console.log('Interrupted: run the same command again to import the rest (what is imported is skipped).');
    return 130;
  }
  return counts.failed ? 1 : 0;
}

/** Only the tests slow an import down between two files (to interrupt it at a known point); a Ctrl-C ends the wait. */
function testPause(signal: AbortSignal): Promise<void> {
  const ms = process.env.NODE_ENV === 'test' ? Number(process.env.VIDEOS_IMPORT_TEST_PAUSE_MS ?? 0) : 0;
  if (!ms || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The admin recorded as the uploader: `--as EMAIL`, or the site's configured admin address. */
async function actingAdmin(ctx: AppContext, as: string | undefined): Promise<string> {
  const email = as ?? configuredAdminEmail(ctx.env);
  if (!email) throw new UsageError('ADMIN_EMAIL is not set: name the admin recorded as the uploader with --as EMAIL');
  const user = await findUserByEmail(ctx.db, email);
  if (!user || user.erased_at)
    throw new UsageError(
      `No account with the address ${email}${as ? '' : ' (ADMIN_EMAIL; start the site once to create it, or use --as EMAIL)'}`,
    );
  if (user.role !== 'admin') throw new UsageError(`${email} is not an admin account`);
  return user.id;
}

export const videosImport: CliCommand = {
  summary:
    'import the video files of DIR through the upload ingest, each file once (by SHA-256; run again to resume): DIR [--access LEVEL] [--publish] [--publish-at ISO] [--recursive] [--as EMAIL]',
  async run({ env, site, args }) {
    let opts: ImportArgs;
    try {
      opts = parseImportArgs(args);
      const st = await fsp.stat(opts.dir).catch(() => null);
      if (!st?.isDirectory()) throw new UsageError(`${opts.dir}: not a folder`);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      console.error(`videos import: ${err.message}\n${USAGE}`);
      return 2;
    }
    const ctx = await createContext(env, site, allProjections());
    try {
      const actorId = await actingAdmin(ctx, opts.as);
      await ctx.media.check();
      return await importFolder(ctx, opts, actorId);
    } catch (err) {
      if (err instanceof UsageError) {
        console.error(`videos import: ${err.message}`);
        return 2;
      }
      if (err instanceof MediaStoreError) {
        console.error(`videos import: ${err.message}`);
        return 1;
      }
      throw err;
    } finally {
      await closeContext(ctx);
    }
  },
};
