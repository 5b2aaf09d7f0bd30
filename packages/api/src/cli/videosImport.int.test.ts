/**
 * `pnpm cli videos import` as an operator runs it (the real CLI through tsx, a child process) beside
 * a running site, on SQLite and PostgreSQL, local media and the S3 gateway: a folder of three real
 * clips (one with a sidecar), a file named like a video that is not one and a text file. The first
 * run imports three and fails one (exit 1); the second skips the three by their SHA-256; the library
 * holds each clip once, with the sidecar's title and access, recorded by the admin, unpublished, and
 * the running site's transcode queue has taken them. Ctrl-C stops a run (130) and the same command
 * finishes it; two runs at once make each file one video (the hash is the read model's key: with it
 * made a no-op, this test saw 5 and 6 videos). Bad arguments exit 2 with the usage.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { API_CLI_ARGS } from '../../test/apiEntry.js';
import { childEnv } from '../../test/childServer.js';
import { forEachStore, type StoreKind, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { bucketKeys, mediaKinds } from '../../test/s3.js';
import { appendTestUser } from '../identity/identity.testkit.js';
import { makeMp4, makeWebm } from '../media/media.testkit.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

async function cli(env: Partial<Record<string, string>>, args: string[]) {
  try {
    const r = await promisify(execFile)(process.execPath, [...API_CLI_ARGS, 'videos', 'import', ...args], {
      cwd: ROOT,
      env: childEnv(env),
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Three clips of different bytes (one with a sidecar), a fake video and a text file. */
async function folderOfClips(): Promise<string> {
  const dir = tmpDir('members-import-');
  const work = tmpDir('members-import-src-');
  try {
    fs.renameSync(await makeMp4(work, 1), path.join(dir, 'my_clip-01.mp4'));
    fs.renameSync(await makeMp4(work, 2), path.join(dir, 'second.mp4'));
    fs.renameSync(await makeWebm(work, 2), path.join(dir, 'golden.webm'));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  fs.writeFileSync(
    path.join(dir, 'golden.json'),
    JSON.stringify({ title: 'Golden Hour', description: 'Sunset on the beach', accessLevel: 'vip', tags: ['sunset', 'beach'] }),
  );
  // Caption sidecars: added as Golden Hour's tracks (the SRT converted), the language from the name.
  fs.writeFileSync(path.join(dir, 'golden.en.vtt'), 'WEBVTT\n\n00:00:00.200 --> 00:00:01.500\nSunset <script>x</script>\n');
  fs.writeFileSync(path.join(dir, 'golden.pt-BR.srt'), '1\n00:00:00,200 --> 00:00:01,500\nPôr do sol\n');
  fs.writeFileSync(path.join(dir, 'fake.mp4'), 'this is not a video, only text with a video name\n'.repeat(20));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'what the folder holds\n');
  return dir;
}

interface VideoRow {
  id: string;
  title: string;
  access_level: string;
  published: number | boolean;
  tags: string;
  video_key: string;
}

const library = (server: TestServer) =>
  server.ctx.db.all<VideoRow>('SELECT id, title, access_level, published, tags, video_key FROM videos ORDER BY title');

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function importTwice(kind: StoreKind, media: 'local' | 's3') {
  const server = await startTestServer(kind, { media });
  const dir = await folderOfClips();
  try {
    const env = { ...server.store.env, ...server.bucket?.env };
    const first = await cli(env, [dir, '--access', 'free']);
    expect(first.stderr).toContain('FAILED fake.mp4:');
    expect(first.stdout).toMatch(/Imported 3, skipped 0 \(already imported\), failed 1 of 4 video files/);
    expect(first.stdout).toContain('Not video files, left alone: notes.txt');
    // A pipe gets plain lines, no bar.
    expect(first.stdout).toMatch(/\[1\/4\] fake\.mp4: failed: /);
    expect(first.stdout).toMatch(
      /\[2\/4\] golden\.webm: imported as video \S+ \(captions golden\.en\.vtt as en, golden\.pt-BR\.srt as pt-BR\)/,
    );
    expect(first.stdout).not.toContain('\r');
    expect(first.code).toBe(1);

    const videos = await library(server);
    expect(videos.map((v) => [v.title, v.access_level, Number(v.published)])).toEqual([
      ['Golden Hour', 'vip', 0],
      ['My clip 01', 'free', 0],
      ['Second', 'free', 0],
    ]);
    expect(JSON.parse((videos[0] as VideoRow).tags)).toEqual(['sunset', 'beach']);
    // The running site's projection reads what the CLI appended.
    const tracks = await waitFor(
      () =>
        server.ctx.db.all<{ language: string; label: string; caption_key: string }>(
          'SELECT language, label, caption_key FROM video_captions WHERE video_id = ? ORDER BY language',
          [(videos[0] as VideoRow).id],
        ),
      (rows) => rows.length === 2,
    );
    expect(tracks.map((t) => [t.language, t.label])).toEqual([
      ['en', 'English'],
      ['pt-BR', 'Português (Brasil)'],
    ]);
    const srt = await server.ctx.media.readText((tracks[1] as { caption_key: string }).caption_key);
    expect(srt).toBe('WEBVTT\n\n1\n00:00:00.200 --> 00:00:01.500\nPôr do sol\n');

    // Recorded as an upload is: VideoUploaded by the admin (and hidden until published), with the file's hash.
    const events = (await server.ctx.store.readAll()).filter((e) => e.type === 'VideoUploaded' || e.type === 'VideoUnpublished');
    const admin = await server.ctx.db.get<{ id: string }>("SELECT id FROM users WHERE role = 'admin'");
    expect(events.map((e) => e.type)).toEqual([
      'VideoUploaded',
      'VideoUnpublished',
      'VideoUploaded',
      'VideoUnpublished',
      'VideoUploaded',
      'VideoUnpublished',
    ]);
    for (const e of events) expect(e.metadata).toMatchObject({ actorId: admin?.id, actor: 'cli:videos-import' });
    expect(events.filter((e) => e.type === 'VideoUploaded').map((e) => e.metadata.contentSha256)).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
    // The running site's transcode queue took each one (its subscriber reads what the CLI appended).
    const queued = await waitFor(
      () => server.ctx.db.all<{ video_id: string }>('SELECT video_id FROM transcode_jobs'),
      (rows) => rows.length === 3,
    );
    expect(queued.map((r) => r.video_id).sort()).toEqual(videos.map((v) => v.id).sort());

    const second = await cli(env, [dir, '--access', 'free']);
    expect(second.stdout).toMatch(/Imported 0, skipped 3 \(already imported\), failed 1 of 4 video files/);
    expect(second.stdout).toMatch(/golden\.webm: skipped, already imported as video \S+ from golden\.webm/);
    expect(second.code).toBe(1);
    expect((await library(server)).map((v) => v.id)).toEqual(videos.map((v) => v.id));

    // The bad file gone, a third run has nothing to do and succeeds; the originals are untouched.
    fs.rmSync(path.join(dir, 'fake.mp4'));
    const third = await cli(env, [dir]);
    expect(third.stdout).toMatch(/Imported 0, skipped 3 \(already imported\), failed 0 of 3 video files/);
    expect(third.code).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual([
      'golden.en.vtt',
      'golden.json',
      'golden.pt-BR.srt',
      'golden.webm',
      'my_clip-01.mp4',
      'notes.txt',
      'second.mp4',
    ]);
    return { server, videos };
  } catch (err) {
    await server.close();
    throw err;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

forEachStore('videos import', (kind) => {
  it('imports a folder beside the running site once: three clips in, the fake failed, a second run skips all three', async () => {
    const { server, videos } = await importTwice(kind, 'local');
    try {
      for (const v of videos) expect(fs.existsSync(path.join(server.store.dataDir, 'media', v.video_key))).toBe(true);
      // The uploader must be an admin account: --as naming no account, or a member, exits 2 and imports nothing.
      const empty = tmpDir('members-import-empty-');
      try {
        await appendTestUser(server.ctx, { id: `member-${Date.now().toString(36)}`, email: 'mia@example.test' });
        for (const as of ['nobody@example.test', 'mia@example.test']) {
          const r = await cli(server.store.env, [empty, '--as', as]);
          expect({ as, code: r.code, err: r.stderr }).toMatchObject({
            as,
            code: 2,
            err: expect.stringMatching(/No account with the address|is not an admin account/),
          });
        }
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    } finally {
      await server.close();
    }
  }, 180_000);
});

forEachStore('videos import, interrupted or twice at once', (kind) => {
  it('two runs at once on one folder make each file one video', async () => {
    const server = await startTestServer(kind);
    const dir = await folderOfClips();
    fs.rmSync(path.join(dir, 'fake.mp4'));
    try {
      const env = { ...server.store.env };
      const runs = await Promise.all([cli(env, [dir]), cli(env, [dir])]);
      const total = (what: RegExp) => runs.reduce((n, r) => n + Number(what.exec(r.stdout)?.[1] ?? Number.NaN), 0);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      expect(total(/Imported (\d+),/)).toBe(3);
      expect(total(/skipped (\d+) /)).toBe(3);
      expect((await library(server)).map((v) => v.title)).toEqual(['Golden Hour', 'My clip 01', 'Second']);
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('Ctrl-C stops after the file in hand (exit 130); the same command then imports the rest, each file once; a terminal gets a bar', async () => {
    const server = await startTestServer(kind);
    const dir = await folderOfClips();
    fs.rmSync(path.join(dir, 'fake.mp4'));
    try {
      const env = { ...server.store.env };
      // Node with tsx's loader (not the tsx CLI, which would be a second process between the signal and the import).
      const child = spawn(process.execPath, [...API_CLI_ARGS, 'videos', 'import', dir], {
        cwd: ROOT,
        env: childEnv({ ...env, VIDEOS_IMPORT_TEST_PAUSE_MS: '5000' }),
      });
      let out = '';
      let interrupted = false;
      child.stdout.on('data', (d) => {
        out += d;
        // Once: a second Ctrl-C quits at once.
        if (!interrupted && /\[1\/3\] golden\.webm: imported as video/.test(out)) interrupted = child.kill('SIGINT');
      });
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(out).toMatch(/Imported 1, skipped 0 \(already imported\), failed 0 of 3 video files/);
      expect(out).toContain('Interrupted: run the same command again to import the rest');
      expect(code).toBe(130);
      expect((await library(server)).map((v) => v.title)).toEqual(['Golden Hour']);

      const resumed = await cli(env, [dir]);
      expect(resumed.stdout).toMatch(/Imported 2, skipped 1 \(already imported\), failed 0 of 3 video files/);
      expect(resumed.code).toBe(0);
      expect((await library(server)).map((v) => v.title)).toEqual(['Golden Hour', 'My clip 01', 'Second']);

      // On a terminal (a pty from script(1)): the line is redrawn as a bar.
      const tty = await promisify(execFile)(
        'script',
        ['-qec', `${process.execPath} ${API_CLI_ARGS.join(' ')} videos import ${dir}`, '/dev/null'],
        {
          cwd: ROOT,
          env: childEnv(env),
        },
      );
      expect(tty.stdout).toContain('\r\u001b[2K[1/3] golden.webm hashing');
      expect(tty.stdout).toMatch(/golden\.webm hashing +\[#{24}\] 100%/);
      expect(tty.stdout).toMatch(/Imported 0, skipped 3/);
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

if (mediaKinds().includes('s3'))
  it('on S3 media the imported videos and their thumbnails are in the bucket', async () => {
    const { server, videos } = await importTwice('sqlite', 's3');
    try {
      const keys = await bucketKeys(server.bucket?.bucket as string);
      for (const v of videos) {
        expect(keys).toContain(v.video_key);
        expect(keys.some((k) => k.startsWith(`videos/${v.id}/thumbnail.`))).toBe(true);
      }
    } finally {
      await server.close();
    }
  }, 180_000);

it('bad arguments exit 2 with the usage, before touching any store', async () => {
  const dataDir = tmpDir('members-import-args-');
  try {
    for (const args of [[], ['--access', 'gold', dataDir], [dataDir, '--frobnicate'], [path.join(dataDir, 'nope')], [dataDir, dataDir]]) {
      const r = await cli({ DATA_DIR: dataDir }, args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain('Usage: pnpm cli videos import DIR');
    }
    expect(fs.readdirSync(dataDir)).not.toContain('store.sqlite');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
