/**
 * tus uploads over real HTTP with the real tus-js-client, a real store and real ffmpeg-generated
 * videos: resume across a server restart, admin-only methods, discovery, limits, metadata checks,
 * ingestion errors, termination and expiry; completion records and the unfinished-upload count in
 * the database (`tus_uploads`), and the import of an earlier version's record files.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { signAccessToken } from '../http/auth.js';
import { USERS_SCHEMA } from '../identity/users.schema.js';
import { parseExposition } from '../metrics/exposition.testkit.js';
import { uploadsInProgress } from './tusUploads.js';

const work = tmpDir('uploads-int-');
const video = path.join(work, 'clip.mp4');
const notVideo = path.join(work, 'notes.mp4');

beforeAll(() => {
  // Noise compresses badly: a few seconds make a file of some hundred KB, sent in several chunks.
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', 'nullsrc=size=320x240:rate=15:duration=3,geq=random(1)*255:128:128'],
    ...['-f', 'lavfi', '-i', 'sine=duration=3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-y', video],
  ]);
  fs.writeFileSync(notVideo, 'just some text, not a video\n'.repeat(100));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const details = { title: 'Tus clip', model: 'Luna Hart', accessLevel: 'free', tags: 'a,b', description: 'd' };

/** tus Upload-Metadata: `key base64(value)` pairs. */
function metadataHeader(m: Record<string, string>): string {
  return Object.entries(m)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');
}

interface Outcome {
  videoId: string | null;
  error?: tus.DetailedError;
}

forEachStore('tus uploads', (kind) => {
  let server: TestServer;
  let token: string;
  let memberToken: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { MAX_UPLOAD_BYTES: '5000000', SHUTDOWN_TIMEOUT_MS: '200' } });
    token = await adminToken(server);
    await server.ctx.db.exec(USERS_SCHEMA);
    await server.ctx.db.run(
      `INSERT INTO users (id, email, email_lower, first_name, last_name, date_of_birth, password_hash, role, status, approved, created_at)
       VALUES ('tus-member', 'm@example.test', 'm@example.test', 'M', 'M', '1990-01-01', 'x', 'member', 'approved', 1, ?)`,
      [new Date().toISOString()],
    );
    memberToken = await signAccessToken(server.ctx, { id: 'tus-member', role: 'member' });
  });
  afterAll(async () => server?.close());

  const tusDir = () => path.join(server.store.dataDir, 'uploads', 'tus');
  const unfinishedGauge = async () =>
    parseExposition(await server.ctx.metrics.registry.metrics()).find('uploads_in_progress', { kind: 'tus' })[0]?.value;
  /** A tus creation request (POST) for an upload of `length` bytes. */
  const createUpload = (length: number, metadata: Record<string, string>) =>
    fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-length': String(length),
        'upload-metadata': metadataHeader(metadata),
      },
    });
  const head = (url: string) => fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' } });

  /** The real tus client on the file; resolves with the video id (header of the last answer) or the error. */
  function upload(
    file: string,
    opts: Partial<tus.UploadOptions> = {},
    meta: Record<string, string> = { filename: path.basename(file), ...details },
  ) {
    let handle!: tus.Upload;
    const done = new Promise<Outcome>((resolve) => {
      handle = new tus.Upload(fs.createReadStream(file), {
        endpoint: `${server.url}/api/admin/uploads`,
        metadata: meta,
        headers: { Authorization: `Bearer ${token}` },
        storeFingerprintForResuming: false,
        retryDelays: null,
        ...opts,
        onSuccess: ({ lastResponse }) => resolve({ videoId: lastResponse.getHeader('Upload-Video-Id') ?? null }),
        onError: (error) => resolve({ videoId: null, error: error as tus.DetailedError }),
      });
      handle.start();
    });
    return { handle, done };
  }

  /** Starts an upload, stops it after its first chunk; resolves with its URL. */
  function firstChunkOnly(chunkSize: number): Promise<string> {
    return new Promise((resolve) => {
      const { handle } = upload(video, {
        chunkSize,
        onChunkComplete: () => {
          void handle.abort().then(() => resolve(handle.url as string));
        },
      });
    });
  }

  it('resumes an upload cut halfway by a server restart and ingests it into the catalog', async () => {
    const size = fs.statSync(video).size;
    const chunkSize = Math.ceil(size / 6);
    expect(size).toBeGreaterThan(100_000);
    let restarting: Promise<void> | undefined;
    let restarted = false;
    const patchOffsetsAfterRestart: number[] = [];
    const { done } = upload(video, {
      chunkSize,
      // Enough tries to cover the restart (connection refused meanwhile).
      retryDelays: Array.from({ length: 40 }, () => 100),
      onBeforeRequest(req) {
        if (restarted && req.getMethod() === 'PATCH') patchOffsetsAfterRestart.push(Number(req.getHeader('Upload-Offset')));
      },
      onProgress(sent) {
        if (!restarting && sent >= size / 2) {
          restarting = server.restart({ PORT: String(server.port) }).then((next) => {
            server = next;
            restarted = true;
          });
        }
      },
    });
    const outcome = await done;
    await restarting;
    expect(outcome.error?.message, String(outcome.error)).toBeUndefined();
    expect(outcome.videoId).toBeTruthy();
    // After the restart the client went on from the server's offset: fewer bytes than the file.
    expect(patchOffsetsAfterRestart.length).toBeGreaterThan(0);
    const resumedFrom = Math.min(...patchOffsetsAfterRestart);
    expect(resumedFrom).toBeGreaterThan(0);
    expect(size - resumedFrom).toBeLessThan(size);
    // The video is in the catalog, with the probed duration and the details from Upload-Metadata.
    const events = await server.ctx.store.readStream(`video-${outcome.videoId}`);
    expect(events[0]?.type).toBe('VideoUploaded');
    expect(events[0]?.data).toMatchObject({ title: 'Tus clip', durationSeconds: 3, tags: ['a', 'b'] });
    const admin = apiClient(server.url);
    const listed = await admin.get(`/admin/videos/${outcome.videoId}`, token);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    // The bytes moved into storage; the upload area is empty.
    expect(fs.readdirSync(tusDir())).toEqual([]);
  });

  it('tells a client that lost the last answer the video id on HEAD instead of taking the file again', async () => {
    const { done } = upload(video);
    const first = await done;
    expect(first.videoId).toBeTruthy();
    // A new client resuming the same URL (as after a lost answer) learns the video at once.
    const url = await (async () => {
      const { handle, done: d } = upload(video);
      await d;
      return handle.url as string;
    })();
    const head = await fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' } });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('upload-offset'))).toBe(fs.statSync(video).size);
    expect(head.headers.get('upload-video-id')).toBeTruthy();
    const status = await apiClient(server.url).get(`/admin/uploads/${url.split('/').pop()}`, token);
    expect(status.body.data).toMatchObject({ status: 'completed', videoId: head.headers.get('upload-video-id') });
  });

  it('finishes on HEAD an upload whose bytes all arrived but whose ingestion never ran (server stopped in between)', async () => {
    const bytes = fs.readFileSync(video);
    const created = await createUpload(bytes.length, { filename: 'late.mp4', title: 'Late clip' });
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location') as string, server.url).toString();
    // The state a crash between the last byte and ingestion leaves: every byte on disk, no video.
    fs.writeFileSync(path.join(tusDir(), url.split('/').pop() as string), bytes);
    // tus-js-client resuming that URL learns the offset is complete and the video id, sending nothing.
    let patches = 0;
    const { done } = upload(video, {
      uploadUrl: url,
      onBeforeRequest(req) {
        if (req.getMethod() === 'PATCH') patches++;
      },
    });
    const outcome = await done;
    expect(outcome.videoId).toBeTruthy();
    expect(patches).toBe(0);
    const events = await server.ctx.store.readStream(`video-${outcome.videoId}`);
    expect(events[0]?.data).toMatchObject({ title: 'Late clip' });
  });

  // Only PostgreSQL shares upload locks between processes (SQLite deployments run one process).
  if (kind === 'postgres')
    it('waits for an upload locked by another process (a PostgreSQL advisory lock), then answers', async () => {
      const url = await firstChunkOnly(100_000);
      const id = url.split('/').pop() as string;
      const other = new pg.Client({ connectionString: server.store.env.DATABASE_URL });
      await other.connect();
      try {
        // Another API process is in the middle of this upload (it ignores the request to let go).
        await other.query('SELECT pg_advisory_lock(734003, hashtext($1))', [id]);
        // A request that finds the upload locked asks the holder to let go (NOTIFY tus_release) each
        // time it tries: the second ask shows it tried, was refused, and is still waiting.
        await other.query('LISTEN tus_release');
        let asks = 0;
        const askedTwice = new Promise<void>((resolve) =>
          other.on('notification', (n) => {
            if (n.payload === id && ++asks === 2) resolve();
          }),
        );
        let answered = false;
        const head = fetch(url, { method: 'HEAD', headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' } }).finally(() => {
          answered = true;
        });
        await askedTwice;
        expect(answered).toBe(false);
        await other.query('SELECT pg_advisory_unlock(734003, hashtext($1))', [id]);
        const res = await head;
        expect(res.status).toBe(200);
        expect(Number(res.headers.get('upload-offset'))).toBe(100_000);
        // Terminating takes the lock too, and nothing is left for the suites below.
        await tus.Upload.terminate(url, { headers: { Authorization: `Bearer ${token}` } });
        expect(fs.existsSync(path.join(tusDir(), id))).toBe(false);
      } finally {
        await other.end();
      }
    });

  it('answers OPTIONS with the tus version, extensions and maximum size', async () => {
    const res = await fetch(`${server.url}/api/admin/uploads`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('tus-version')).toBe('1.0.0');
    const extensions = (res.headers.get('tus-extension') ?? '').split(',');
    expect(extensions).toEqual(expect.arrayContaining(['creation', 'termination', 'expiration']));
    expect(res.headers.get('tus-max-size')).toBe('5000000');
    // No cross-origin browser is invited.
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses every method that touches an upload to members (403) and visitors (401)', async () => {
    const url = await firstChunkOnly(50_000);
    const id = String(url).split('/').pop();
    const tusHeaders = { 'tus-resumable': '1.0.0' };
    const requests: Array<[string, string, Record<string, string>, string | undefined]> = [
      [
        'POST',
        '/api/admin/uploads',
        { 'upload-length': '100', 'upload-metadata': metadataHeader({ filename: 'x.mp4', title: 't' }) },
        undefined,
      ],
      ['HEAD', `/api/admin/uploads/${id}`, {}, undefined],
      ['GET', `/api/admin/uploads/${id}`, {}, undefined],
      ['PATCH', `/api/admin/uploads/${id}`, { 'upload-offset': '50000', 'content-type': 'application/offset+octet-stream' }, 'abc'],
      ['DELETE', `/api/admin/uploads/${id}`, {}, undefined],
    ];
    for (const [method, p, headers, body] of requests) {
      for (const [who, auth, expected] of [
        ['member', { authorization: `Bearer ${memberToken}` }, 403],
        ['visitor', {}, 401],
      ] as const) {
        const res = await fetch(`${server.url}${p}`, { method, headers: { ...tusHeaders, ...headers, ...auth }, body });
        expect(res.status, `${method} as ${who}`).toBe(expected);
        if (method !== 'HEAD') expect(((await res.json()) as { success: boolean }).success).toBe(false);
      }
    }
    // Nothing changed: the admin still sees the upload where it was, and terminates it.
    const head = await fetch(`${server.url}/api/admin/uploads/${id}`, {
      method: 'HEAD',
      headers: { ...tusHeaders, authorization: `Bearer ${token}` },
    });
    expect(head.headers.get('upload-offset')).toBe('50000');
    await tus.Upload.terminate(String(url), { headers: { Authorization: `Bearer ${token}` } });
    expect(fs.existsSync(path.join(tusDir(), String(id)))).toBe(false);
    expect((await apiClient(server.url).get(`/admin/uploads/${id}`, token)).status).toBe(404);
  });

  it('refuses an upload over MAX_UPLOAD_BYTES (413) before any byte', async () => {
    const before = fs.readdirSync(tusDir()).length;
    const res = await fetch(`${server.url}/api/admin/uploads`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-length': '6000000',
        'upload-metadata': metadataHeader({ filename: 'big.mp4', title: 'Big' }),
      },
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toMatch(/size/i);
    expect(fs.readdirSync(tusDir()).length).toBe(before);
  });

  it('refuses bad metadata (400) before any byte is stored', async () => {
    const before = fs.readdirSync(tusDir()).length;
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ filename: 'a.mp4', title: ' ' }, /title/i],
      [{ filename: 'a.mp4' }, /title/],
      [{ title: 'No file name' }, /filename/],
      [{ filename: 'a.mp4', title: 'Bad duration', durationText: '99' }, /mm:ss/],
      [{ filename: 'a.mp4', title: 'Bad level', accessLevel: 'vip-only' }, /access/i],
      [{ filename: 'a.mp4', title: 'Bad frame', thumbnailAtSeconds: 'soon' }, /thumbnailAtSeconds/],
      [{ filename: 'a.mp4', title: 'Bad exclusivity', exclusiveTo: 'monthly' }, /exclusiveTo must be annual/],
      [{ filename: 'a.mp4', title: 'Bad release', publishAt: '2026-12-03 09:00' }, /publishAt must be an ISO 8601 date-time/],
    ];
    for (const [meta, message] of cases) {
      const { done } = upload(video, {}, meta);
      const outcome = await done;
      expect(outcome.error?.originalResponse?.getStatus(), JSON.stringify(meta)).toBe(400);
      const body = JSON.parse(outcome.error?.originalResponse?.getBody() ?? '{}');
      expect(body.error).toMatch(message);
      // The hook's refusal keeps its code through tus (a schema problem, or a field rule of ingestion).
      expect(['validation.invalid_body', 'validation.invalid_input']).toContain(body.code);
    }
    expect(fs.readdirSync(tusDir()).length).toBe(before);
  });

  it('answers a non-video with the reason and leaves nothing behind', async () => {
    const videos = () => fs.readdirSync(path.join(server.store.dataDir, 'media', 'videos')).length;
    const before = videos();
    const { done } = upload(notVideo);
    const outcome = await done;
    expect(outcome.error?.originalResponse?.getStatus()).toBe(400);
    expect(JSON.parse(outcome.error?.originalResponse?.getBody() ?? '{}')).toMatchObject({
      error: expect.stringMatching(/not a playable video/),
      code: 'validation.invalid_input',
    });
    expect(fs.readdirSync(tusDir())).toEqual([]);
    expect(videos()).toBe(before);
  });

  it('counts an unfinished upload in uploads_in_progress{kind="tus"} until it is finished or terminated', async () => {
    const before = (await unfinishedGauge()) as number;
    expect(before).toBeGreaterThanOrEqual(0);
    const url = await firstChunkOnly(40_000);
    expect(await unfinishedGauge()).toBe(before + 1);
    const removed = await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'tus-resumable': '1.0.0' } });
    expect(removed.status).toBe(204);
    expect(await unfinishedGauge()).toBe(before);
    // Begun, counted, finished by the client resuming it: no longer counted, its record names the video.
    const resumable = await firstChunkOnly(40_000);
    expect(await unfinishedGauge()).toBe(before + 1);
    const { done } = upload(video, { uploadUrl: resumable });
    const outcome = await done;
    expect(outcome.videoId).toBeTruthy();
    expect(await unfinishedGauge()).toBe(before);
    const row = await server.ctx.db.get('SELECT video_id, size FROM tus_uploads WHERE id = ?', [resumable.split('/').pop()]);
    expect(row && [row.video_id, Number(row.size)]).toEqual([outcome.videoId, fs.statSync(video).size]);
    // Nothing of it on this process's disk: no upload left, no completion record file.
    expect(fs.existsSync(path.join(server.store.dataDir, 'uploads', 'done'))).toBe(false);
  });

  it('expires an abandoned upload and removes its file', async () => {
    const counted = (await unfinishedGauge()) as number;
    const url = await firstChunkOnly(40_000);
    const id = url.split('/').pop() as string;
    expect(fs.statSync(path.join(tusDir(), id)).size).toBe(40_000);
    expect(await uploadsInProgress(server.store.dataDir)).toBe(1);
    const record = path.join(tusDir(), `${id}.json`);
    // Every PATCH answer names the expiry (tus expiration extension): a week after creation.
    const patched = await fetch(url, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-offset': '40000',
        'content-type': 'application/offset+octet-stream',
      },
      body: new Uint8Array(fs.readFileSync(video).subarray(40_000, 41_000)),
    });
    expect(patched.status).toBe(204);
    const expires = Date.parse(patched.headers.get('upload-expires') ?? '');
    expect(expires - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    // A week and a day pass (the file store dates uploads in its own record).
    const info = JSON.parse(fs.readFileSync(record, 'utf8'));
    info.creation_date = new Date(Date.now() - 8 * 86_400_000).toISOString();
    fs.writeFileSync(record, JSON.stringify(info));
    await server.ctx.db.run('UPDATE tus_uploads SET created_at = ? WHERE id = ?', [info.creation_date, id]);
    expect(await unfinishedGauge()).toBe(counted); // past its expiry: no longer in progress
    // The sweep runs at start-up (and hourly).
    server = await server.restart({ PORT: String(server.port) });
    // The sweep removes the file, then its record: wait for both.
    const left = () => fs.existsSync(path.join(tusDir(), id)) || fs.existsSync(record);
    for (let k = 0; k < 100 && left(); k++) await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(path.join(tusDir(), id))).toBe(false);
    expect(fs.existsSync(record)).toBe(false);
    expect(await uploadsInProgress(server.store.dataDir)).toBe(0);
    const gone = await head(url);
    expect(gone.status).toBe(404);
    for (let k = 0; k < 100 && (await server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [id])); k++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [id])).toBeUndefined();
  });

  it('removes an upload whose every byte arrived but that was never ingested once it has expired', async () => {
    const bytes = fs.readFileSync(video);
    const created = await createUpload(bytes.length, { filename: 'forgotten.mp4', title: 'Forgotten' });
    expect(created.status).toBe(201);
    const id = (created.headers.get('location') as string).split('/').pop() as string;
    // Every byte on disk, no ingestion (a process died in between), and nobody asked for a week and a day.
    fs.writeFileSync(path.join(tusDir(), id), bytes);
    const record = path.join(tusDir(), `${id}.json`);
    const info = JSON.parse(fs.readFileSync(record, 'utf8'));
    info.offset = bytes.length;
    info.creation_date = new Date(Date.now() - 8 * 86_400_000).toISOString();
    fs.writeFileSync(record, JSON.stringify(info));
    await server.ctx.db.run('UPDATE tus_uploads SET created_at = ? WHERE id = ?', [info.creation_date, id]);
    // tus's own sweep keeps a complete upload whatever its age; ours (at start, and hourly) does not.
    server = await server.restart({ PORT: String(server.port) });
    const left = async () =>
      fs.existsSync(path.join(tusDir(), id)) ||
      fs.existsSync(record) ||
      (await server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [id]));
    for (let k = 0; k < 100 && (await left()); k++) await new Promise((r) => setTimeout(r, 20));
    expect([fs.existsSync(path.join(tusDir(), id)), fs.existsSync(record)]).toEqual([false, false]);
    expect(await server.ctx.db.get('SELECT id FROM tus_uploads WHERE id = ?', [id])).toBeUndefined();
    expect(await server.ctx.db.all('SELECT id FROM videos WHERE title = ?', ['Forgotten'])).toEqual([]);
  });
});
