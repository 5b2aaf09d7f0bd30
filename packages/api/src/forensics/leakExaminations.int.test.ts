/**
 * The admin's Leak tracing API (POST/GET /api/admin/leaks/examinations, docs/leak-tracing.md) on
 * the production configuration, on real ffmpeg output: one 50 s video transcoded with the mark, one
 * member's stream saved with ffmpeg from their own signed playlist and key, and that copy uploaded by
 * the admin, examined in the background and named. Kept short in CPU: one transcode and one 50 s
 * copy per store. Around it, the attacker's requests: a visitor and a member refused with no event
 * and nothing staged, an oversize upload refused at the cap without filling the disk, a garbage
 * file with a path-like name a clear failed outcome, a short unmarked copy "too short", and a
 * server with FORENSIC_WATERMARK off saying so.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { leakExaminationSchema, leakExaminationsAnswerSchema } from '@members/ui/api/schemas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { ingestVideoFile } from '../catalog/ingest';
import { mediaBinaries } from '../media/ffmpeg';
import { makeMp4 } from '../media/media.testkit';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from '../streaming/viewers.testkit';
import { transcodeForTest } from '../transcode/transcode.testkit';
import { FORENSICS_STREAM } from './identify.service';

const run = promisify(execFile);
const ffmpeg = (args: string[]) =>
  run(mediaBinaries().ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], { timeout: 300_000 });
const fixtures = tmpDir('leak-examinations-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

const CAP = 4 * 1024 * 1024;
const PRODUCTION = {
  NODE_ENV: 'production',
  REQUIRE_ADMIN_2FA: 'false',
  FORENSIC_WATERMARK: 'true',
  TRANSCODE_PRESET: 'ultrafast',
  LEAK_COPY_MAX_BYTES: String(CAP),
};

/** 50 s of smooth, never-repeating picture with a tone (as forensics.int.test.ts, shorter). */
async function sourceClip(): Promise<string> {
  const file = path.join(fixtures, 'source.mp4');
  if (fs.existsSync(file)) return file;
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc2=size=96x54:rate=24:duration=50,scale=320:180:flags=bicubic'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=50'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '18', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
  ]);
  return file;
}

/** A multipart POST over node:http: `chunked` sends no Content-Length (the cap must hold while streaming). */
function postCopy(
  server: TestServer,
  opts: { token?: string; fileName: string; bytes: Buffer | { repeat: number; chunk: Buffer }; videoId?: string; chunked?: boolean },
): Promise<{ status: number; body: any }> {
  const boundary = `----leak${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `${opts.videoId ? `--${boundary}\r\nContent-Disposition: form-data; name="videoId"\r\n\r\n${opts.videoId}\r\n` : ''}` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${opts.fileName}"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const parts: Buffer[] = Buffer.isBuffer(opts.bytes) ? [opts.bytes] : Array(opts.bytes.repeat).fill(opts.bytes.chunk);
  const length = head.length + tail.length + parts.reduce((n, p) => n + p.length, 0);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (!opts.chunked) headers['content-length'] = String(length);
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, path: '/api/admin/leaks/examinations', method: 'POST', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') }));
        res.on('error', reject);
      },
    );
    // The server may answer (and close) before the whole body is sent: that is the point of the cap.
    req.on('error', (err) =>
      (err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err),
    );
    (async () => {
      req.write(head);
      for (const p of parts) if (!req.write(p)) await new Promise((r) => req.once('drain', r));
      req.end(tail);
    })().catch(() => undefined);
  });
}

async function settled(server: TestServer, token: string, id: string) {
  const api = apiClient(server.url);
  for (let i = 0; i < 600; i++) {
    const a = await api.get(`/admin/leaks/examinations/${id}`, token);
    expect(a.status).toBe(200);
    // Every answer is what the shared schema (and so the OpenAPI document and the clients) says.
    const examination = leakExaminationSchema.parse(a.body.data);
    if (examination.status === 'done' || examination.status === 'failed') return a.body.data;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the examination never finished');
}

const incoming = (server: TestServer) => {
  const dir = path.join(server.store.dataDir, 'media', 'incoming');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.leak')) : [];
};
const examinedEvents = async (server: TestServer) => (await server.ctx.store.readStream(FORENSICS_STREAM)).length;

forEachStore('leak tracing: the admin API', (kind) => {
  let server: TestServer;
  let admin: TestViewer;
  let member: TestViewer;
  let saved: string;
  let videoId: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { env: PRODUCTION });
    admin = await createTestUser(server.ctx, { role: 'admin' });
    member = await createTestUser(server.ctx);
    await grantActiveSubscriptionForTest(server.ctx, member.id);
    const upload = path.join(fixtures, `upload-${kind}.mp4`);
    fs.copyFileSync(await sourceClip(), upload);
    const r = await ingestVideoFile(server.ctx, { filePath: upload, title: 'marked', accessLevel: 'premium', actorId: admin.id });
    if (!r.ok) throw new Error(r.error.message);
    videoId = r.videoId;
    expect(await transcodeForTest(server, videoId)).toBe('completed');
    // The member saves their stream with ffmpeg from their own signed playlist and key: the leak.
    const stream = await apiClient(server.url).get(`/videos/${videoId}/stream`, member.token);
    expect(stream.status).toBe(200);
    saved = path.join(fixtures, `saved-${kind}.mp4`);
    await ffmpeg(['-i', new URL(stream.body.data.hlsUrl, server.url).toString(), '-c', 'copy', saved]);
  }, 600_000);
  afterAll(() => server?.close());

  it("names the member from their saved stream: 202 queued, then done with the member, the bits and the bound; recorded as the CLI's event", async () => {
    const bytes = fs.readFileSync(saved);
    expect(bytes.length).toBeLessThan(CAP);
    const before = await examinedEvents(server);
    const sent = await postCopy(server, { token: admin.token, fileName: 'leaked copy.mp4', bytes });
    expect(sent.status).toBe(202);
    expect(sent.body.data).toMatchObject({ status: 'queued', fileName: 'leaked copy.mp4', sizeBytes: bytes.length, outcome: null });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(sent.body.data.sha256).toBe(sha256);
    const done = await settled(server, admin.token, sent.body.data.id);
    console.log(`[leak examinations ${kind}] ${done.summary}`);
    expect(done.status).toBe('done');
    expect(done.outcome).toMatchObject({
      kind: 'identified',
      videoId,
      member: { id: member.id, email: member.email, displayName: expect.stringContaining('Viewer') },
      membersBound: 100_000,
    });
    expect(done.outcome.bitsRead).toBeGreaterThanOrEqual(37);
    expect(done.outcome.falseMatchBound).toBeLessThanOrEqual(1e-6);
    expect(done.summary).toContain(member.email);
    expect(incoming(server)).toEqual([]);
    // One event, the CLI's kind, with who asked and the hash; the list reads it back.
    const events = await server.ctx.store.readStream(FORENSICS_STREAM);
    expect(events.length).toBe(before + 1);
    const event = events[events.length - 1];
    expect(event).toMatchObject({
      type: 'LeakCopyExamined',
      data: { sha256, outcome: 'identified', memberId: member.id, examinationId: sent.body.data.id },
      metadata: { actorId: admin.id },
    });
    expect(JSON.stringify(event?.data)).not.toContain(member.email);
    const list = await apiClient(server.url).get('/admin/leaks/examinations', admin.token);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ enabled: true, maxBytes: CAP });
    leakExaminationsAnswerSchema.parse(list.body.data);
    leakExaminationSchema.parse(sent.body.data);
    expect(list.body.data.examinations[0]).toMatchObject({
      examinationId: sent.body.data.id,
      examinedBy: admin.email,
      sha256,
      outcome: 'identified',
      memberId: member.id,
      fileName: 'leaked copy.mp4',
    });
  }, 300_000);

  it('a garbage file with a path-like name: 202, then failed with an unreadable outcome, recorded; the name is only text', async () => {
    const sent = await postCopy(server, { token: admin.token, fileName: '../../../etc/passwd', bytes: randomBytes(20_000) });
    expect(sent.status).toBe(202);
    expect(sent.body.data.fileName).toBe('passwd');
    const done = await settled(server, admin.token, sent.body.data.id);
    expect(done).toMatchObject({ status: 'failed', outcome: { kind: 'unreadable' } });
    expect(done.summary).toMatch(/^unreadable: /);
    expect(fs.existsSync(path.join(server.store.dataDir, 'etc'))).toBe(false);
    expect(incoming(server)).toEqual([]);
  }, 60_000);

  it('a 10 s stretch of the saved stream is "too short: needs at least N s"; a 2 s unrelated clip is "no match"', async () => {
    const stretch = path.join(fixtures, `stretch-${kind}.mp4`);
    await ffmpeg(['-ss', '12', '-i', saved, '-t', '10', '-c', 'copy', stretch]);
    const short = await postCopy(server, { token: admin.token, fileName: 'stretch.mp4', bytes: fs.readFileSync(stretch), videoId });
    expect(short.status).toBe(202);
    const tooShort = await settled(server, admin.token, short.body.data.id);
    expect(tooShort).toMatchObject({ status: 'done', outcome: { kind: 'too-short', videoId } });
    expect(tooShort.summary).toMatch(/^too short: needs at least \d+ s$/);
    const other = await postCopy(server, { token: admin.token, fileName: 'other.mp4', bytes: fs.readFileSync(await makeMp4(fixtures, 2)) });
    const noMatch = await settled(server, admin.token, other.body.data.id);
    expect(noMatch).toMatchObject({ status: 'done', outcome: { kind: 'no-match' }, summary: 'no match' });
  }, 60_000);

  it('over LEAK_COPY_MAX_BYTES: 413 leak.file_too_large, declared or streamed, with no event and nothing left on disk', async () => {
    const before = await examinedEvents(server);
    const chunk = randomBytes(256 * 1024);
    for (const chunked of [false, true]) {
      const a = await postCopy(server, { token: admin.token, fileName: 'big.mp4', bytes: { repeat: 40, chunk }, chunked });
      expect(a.status).toBe(413);
      expect(a.body).toMatchObject({ success: false, code: 'leak.file_too_large' });
      expect(incoming(server)).toEqual([]);
    }
    expect(await examinedEvents(server)).toBe(before);
    const unknown = await postCopy(server, { token: admin.token, fileName: 'x.mp4', bytes: randomBytes(1000), videoId: 'no-such-video' });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'video.not_found' } });
    const noFile = await apiClient(server.url).call('POST', '/admin/leaks/examinations', {
      token: admin.token,
      raw: '--b--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(noFile.status).toBe(400);
    const notForm = await apiClient(server.url).call('POST', '/admin/leaks/examinations', { token: admin.token, body: { file: 'x' } });
    expect(notForm).toMatchObject({ status: 415, body: { code: 'leak.form_required' } });
    expect(incoming(server)).toEqual([]);
  }, 60_000);

  it('a visitor (401) and a member (403) send a copy and read examinations: refused, no event, nothing staged', async () => {
    const before = await examinedEvents(server);
    const bytes = fs.readFileSync(saved);
    expect((await postCopy(server, { fileName: 'copy.mp4', bytes })).status).toBe(401);
    const asMember = await postCopy(server, { token: member.token, fileName: 'copy.mp4', bytes });
    expect(asMember).toMatchObject({ status: 403, body: { code: 'auth.admin_only' } });
    const api = apiClient(server.url);
    expect((await api.get('/admin/leaks/examinations', member.token)).status).toBe(403);
    expect((await api.get('/admin/leaks/examinations')).status).toBe(401);
    const listed = (await api.get('/admin/leaks/examinations', admin.token)).body.data.examinations[0].examinationId;
    expect((await api.get(`/admin/leaks/examinations/${listed}`, member.token)).status).toBe(403);
    expect((await api.get(`/admin/leaks/examinations/${listed}`)).status).toBe(401);
    expect((await api.get('/admin/leaks/examinations/no-such-id', admin.token)).body).toMatchObject({ code: 'leak.examination_not_found' });
    expect(await examinedEvents(server)).toBe(before);
    expect(incoming(server)).toEqual([]);
  });
});

forEachStore('leak tracing: FORENSIC_WATERMARK off', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { env: { ...PRODUCTION, FORENSIC_WATERMARK: 'false' } });
  });
  afterAll(() => server?.close());

  it('sending a copy is a 409 leak.watermark_off saying so; the list says enabled: false', async () => {
    const admin = await createTestUser(server.ctx, { role: 'admin' });
    const a = await postCopy(server, { token: admin.token, fileName: 'copy.mp4', bytes: randomBytes(1000) });
    expect(a.status).toBe(409);
    expect(a.body).toMatchObject({ success: false, code: 'leak.watermark_off' });
    expect(a.body.error).toContain('FORENSIC_WATERMARK');
    const list = await apiClient(server.url).get('/admin/leaks/examinations', admin.token);
    expect(list.body.data).toMatchObject({ enabled: false, examinations: [] });
    expect(incoming(server)).toEqual([]);
  });
});
