/** The resumable upload protocol over real HTTP, a real store and real ffmpeg-generated videos. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness.js';
import { sweepStaleUploads } from './uploadSweeper.js';

const work = tmpDir('uploads-int-');
const video = path.join(work, 'clip.mp4');
const notVideo = path.join(work, 'notes.mp4');

beforeAll(() => {
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=3:size=160x120:rate=15',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=3',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    '-y',
    video,
  ]);
  fs.writeFileSync(notVideo, 'just some text, not a video\n'.repeat(100));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

async function patch(url: string, id: string, token: string, offset: number, body: Uint8Array, type = 'application/offset+octet-stream') {
  const res = await fetch(`${url}/api/admin/uploads/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': type, 'upload-offset': String(offset) },
    body,
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { success: boolean; data?: any; error?: string; details?: any },
  };
}

forEachStore('resumable uploads', (kind) => {
  let server: TestServer;
  let token: string;
  const bytes = () => new Uint8Array(fs.readFileSync(video));
  const metadata = { title: 'Chunked clip', model: 'Luna Hart', accessLevel: 'free', tags: ['a', 'b'], description: 'd' };

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { MAX_UPLOAD_BYTES: '5000000', SHUTDOWN_TIMEOUT_MS: '200' } });
    token = await adminToken(server);
  });
  afterAll(async () => server?.close());

  it('is admin-only', async () => {
    const api = apiClient(server.url);
    expect((await api.post('/admin/uploads', { fileName: 'x.mp4', size: 10, metadata })).status).toBe(401);
  });

  it('creates, answers HEAD with the offset, appends chunks, survives a restart and ingests at the last byte', async () => {
    const api = apiClient(server.url);
    const all = bytes();
    const created = await api.post('/admin/uploads', { fileName: 'clip.mp4', size: all.length, metadata }, token);
    expect(created.status).toBe(201);
    const id = created.body.data.uploadId as string;
    expect(created.body.data.offset).toBe(0);

    const half = Math.floor(all.length / 2);
    const first = await patch(server.url, id, token, 0, all.subarray(0, half));
    expect(first.status).toBe(200);
    expect(first.body.data.offset).toBe(half);

    // A wrong offset is a 409 that names the server's offset.
    const wrong = await patch(server.url, id, token, 7, all.subarray(7, 20));
    expect(wrong.status).toBe(409);
    expect(wrong.body.details.offset).toBe(half);
    const wrongType = await patch(server.url, id, token, half, all.subarray(half, half + 10), 'application/octet-stream');
    expect(wrongType.status).toBe(415);

    // The state survives a restart: the part file is the offset.
    server = await server.restart({ PORT: String(server.port) });
    const head = await fetch(`${server.url}/api/admin/uploads/${id}`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(half));
    expect(head.headers.get('upload-length')).toBe(String(all.length));

    const last = await patch(server.url, id, token, half, all.subarray(half));
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    const videoId = last.body.data.videoId as string;
    expect(videoId).toBeTruthy();
    const status = await api.get(`/admin/uploads/${id}`, token);
    expect(status.body.data).toMatchObject({ status: 'completed', videoId, offset: all.length });
    expect(fs.existsSync(path.join(server.store.dataDir, 'uploads', `${id}.part`))).toBe(false);
    // The ingested video is in the log.
    const events = await server.ctx.store.readStream(`video-${videoId}`);
    expect(events[0]?.type).toBe('VideoUploaded');
    expect((events[0]?.data as { durationSeconds: number } | undefined)?.durationSeconds).toBe(3);
  });

  it('refuses too large files (413) and bytes past the declared size (413)', async () => {
    const api = apiClient(server.url);
    expect((await api.post('/admin/uploads', { fileName: 'big.mp4', size: 6_000_000, metadata }, token)).status).toBe(413);
    const created = await api.post('/admin/uploads', { fileName: 'small.mp4', size: 10, metadata }, token);
    const over = await patch(server.url, created.body.data.uploadId, token, 0, new Uint8Array(20));
    expect(over.status).toBe(413);
    expect((await api.get(`/admin/uploads/${created.body.data.uploadId}`, token)).body.data.offset).toBe(0);
  });

  it('checks the metadata and the thumbnail before any byte is sent', async () => {
    const api = apiClient(server.url);
    const noTitle = await api.post('/admin/uploads', { fileName: 'a.mp4', size: 10, metadata: { title: ' ' } }, token);
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.error).toBe('Please provide at least a title and video file');
    const badThumb = await api.post(
      '/admin/uploads',
      { fileName: 'a.mp4', size: 10, metadata, thumbnail: Buffer.from('png?').toString('base64') },
      token,
    );
    expect(badThumb.status).toBe(400);
  });

  it('answers an ingestion error (not a video) and marks the upload failed', async () => {
    const api = apiClient(server.url);
    const all = new Uint8Array(fs.readFileSync(notVideo));
    const created = await api.post('/admin/uploads', { fileName: 'notes.mp4', size: all.length, metadata }, token);
    const res = await patch(server.url, created.body.data.uploadId, token, 0, all);
    expect(res.status).toBe(400);
    expect(res.body.error).toBeTruthy();
    expect((await api.get(`/admin/uploads/${created.body.data.uploadId}`, token)).body.data.status).toBe('failed');
  });

  it('cancels uploads abandoned for a week and removes their partial files', async () => {
    const api = apiClient(server.url);
    const created = await api.post('/admin/uploads', { fileName: 'old.mp4', size: 1000, metadata }, token);
    const id = created.body.data.uploadId;
    await patch(server.url, id, token, 0, new Uint8Array(10));
    server.clock.advance(6 * 86_400_000);
    await sweepStaleUploads(server.ctx);
    expect(fs.existsSync(path.join(server.store.dataDir, 'uploads', `${id}.part`))).toBe(true);
    server.clock.advance(2 * 86_400_000);
    expect(await sweepStaleUploads(server.ctx)).toBeGreaterThanOrEqual(1);
    token = await adminToken(server); // the old one expired with the clock
    expect(fs.existsSync(path.join(server.store.dataDir, 'uploads', `${id}.part`))).toBe(false);
    expect((await api.get(`/admin/uploads/${id}`, token)).body.data.status).toBe('canceled');
  });

  it('DELETE cancels and removes the partial file', async () => {
    const api = apiClient(server.url);
    const all = bytes();
    const created = await api.post('/admin/uploads', { fileName: 'c.mp4', size: all.length, metadata }, token);
    const id = created.body.data.uploadId;
    await patch(server.url, id, token, 0, all.subarray(0, 100));
    const part = path.join(server.store.dataDir, 'uploads', `${id}.part`);
    expect(fs.statSync(part).size).toBe(100);
    expect((await api.del(`/admin/uploads/${id}`, token)).status).toBe(200);
    expect(fs.existsSync(part)).toBe(false);
    expect((await patch(server.url, id, token, 100, all.subarray(100, 200))).status).toBe(410);
  });
});
