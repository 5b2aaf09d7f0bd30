import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { filesUnder, makeFakeVideo, makeImage, makeMp4, makeWebm } from '../media/media.testkit';
import { createTestUser, type TestViewer } from '../streaming/viewers.testkit';
import { postUpload } from './upload.testkit';

/** An upload's answer as the client reads it: status and body. */
const answer = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });

const fixtures = tmpDir('upload-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

forEachStore('video upload', (kind) => {
  let server: TestServer;
  let admin: TestViewer;
  let member: TestViewer;
  let api: ReturnType<typeof apiClient>;
  const mediaFiles = () => filesUnder(path.join(server.store.dataDir, 'media'));

  beforeAll(async () => {
    server = await startTestServer(kind);
    api = apiClient(server.url);
    admin = await createTestUser(server.ctx, { role: 'admin' });
    member = await createTestUser(server.ctx);
  });
  afterAll(() => server?.close());

  it('an MP4 with only a title: real duration, extracted thumbnail, recorded media facts', async () => {
    const r = await postUpload(server.url, admin.token, { title: 'Golden Hour', duration: '12:34' }, { video: await makeMp4(fixtures, 3) });
    expect(r.status).toBe(201);
    const videoId = r.body.data.videoId as string;
    const video = await api.get(`/videos/${videoId}`);
    expect(video.body.data).toMatchObject({
      id: videoId,
      title: 'Golden Hour',
      duration: 3,
      viewCount: 0,
      accessLevel: 'premium',
      tags: [],
      categories: [],
      thumbnailPath: `/api/videos/${videoId}/thumbnail`,
    });
    const thumb = await fetch(`${server.url}${video.body.data.thumbnailPath}`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect([...new Uint8Array(await thumb.arrayBuffer()).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const adminView = await api.get(`/admin/videos/${videoId}`, admin.token);
    expect(adminView.body.data).toMatchObject({ width: 160, height: 120, codec: 'h264', audioCodec: 'aac', mimeType: 'video/mp4' });
    expect(adminView.body.data.size).toBe(fs.statSync(await makeMp4(fixtures, 3)).size);
    expect(
      mediaFiles()
        .map((f) => path.relative(server.store.dataDir, f))
        .sort(),
    ).toEqual([`media/videos/${videoId}/thumbnail.jpg`, `media/videos/${videoId}/video.mp4`].sort());
  });

  it('a VP9 WebM with every field and its own PNG thumbnail', async () => {
    const r = await postUpload(
      server.url,
      admin.token,
      { title: 'Night', description: 'Rooftop', model: 'Luna Hart', accessLevel: 'free', tags: ['city', 'night'], categories: 'Solo, 4K' },
      { video: await makeWebm(fixtures, 2), thumbnail: await makeImage(fixtures, 'png') },
    );
    expect(r.status).toBe(201);
    const { data } = (await api.get(`/videos/${r.body.data.videoId}`)).body;
    expect(data).toMatchObject({ title: 'Night', description: 'Rooftop', modelName: 'Luna Hart', accessLevel: 'free', duration: 2 });
    expect(data.tags).toEqual(['city', 'night']);
    expect(data.categories).toEqual(['Solo', '4K']);
    const thumb = await fetch(`${server.url}${data.thumbnailPath}`);
    expect(thumb.headers.get('content-type')).toBe('image/png');
  });

  it('exclusiveTo and publishAt fields: behind-the-scenes, scheduled (hidden until then, admins see when); bad values 400', async () => {
    const publishAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const r = await postUpload(
      server.url,
      admin.token,
      { title: 'Later', exclusiveTo: 'annual', publishAt },
      { video: await makeMp4(fixtures, 2) },
    );
    expect(r.status).toBe(201);
    expect((await api.get(`/videos/${r.body.data.videoId}`)).status).toBe(404);
    expect((await api.get(`/admin/videos/${r.body.data.videoId}`, admin.token)).body.data).toMatchObject({
      exclusiveTo: 'annual',
      publishAt,
      published: false,
    });
    for (const [fields, message] of [
      [{ title: 'Bad', exclusiveTo: 'vip' }, 'exclusiveTo must be annual (or empty for none)'],
      [{ title: 'Bad', publishAt: 'next friday' }, 'publishAt must be an ISO 8601 date-time with an offset (e.g. 2026-12-03T09:00:00Z)'],
    ] as const) {
      const bad = await postUpload(server.url, admin.token, fields, { video: await makeMp4(fixtures, 2) });
      expect(answer(bad)).toEqual({ status: 400, body: { success: false, error: message, code: 'validation.invalid_input' } });
    }
  });

  it('missing title or file: the spec message, nothing stored', async () => {
    const before = mediaFiles();
    const video = await makeMp4(fixtures, 3);
    for (const [fields, files] of [
      [{ title: 'No file' }, {}],
      [{ title: '   ' }, { video }],
      [{}, { video }],
    ] as const) {
      const r = await postUpload(server.url, admin.token, fields, files);
      expect(answer(r)).toEqual({
        status: 400,
        body: { success: false, error: 'Please provide at least a title and video file', code: 'validation.invalid_input' },
      });
    }
    const json = await api.post('/admin/upload-video', { title: 'json' }, admin.token);
    expect(json.status).toBe(400);
    expect(mediaFiles()).toEqual(before);
  });

  it('a text file renamed .mp4 and a fake thumbnail are refused and leave nothing behind', async () => {
    const before = mediaFiles();
    const notVideo = await postUpload(server.url, admin.token, { title: 'Fake' }, { video: makeFakeVideo(fixtures) });
    expect(answer(notVideo)).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'The uploaded file is not a playable video (no video stream found)',
        code: 'validation.invalid_input',
      },
    });
    const fakeThumb = path.join(fixtures, 'thumb.jpg');
    fs.writeFileSync(fakeThumb, 'not an image');
    const badThumb = await postUpload(
      server.url,
      admin.token,
      { title: 'Bad thumb' },
      { video: await makeMp4(fixtures, 3), thumbnail: fakeThumb },
    );
    expect(answer(badThumb)).toEqual({
      status: 400,
      body: { success: false, error: 'The thumbnail must be a JPEG, PNG or WebP image', code: 'validation.invalid_input' },
    });
    const badLevel = await postUpload(
      server.url,
      admin.token,
      { title: 'Lvl', accessLevel: 'gold' },
      { video: await makeMp4(fixtures, 3) },
    );
    expect(badLevel.body.error).toBe('accessLevel must be one of free, premium, vip');
    const badDuration = await postUpload(server.url, admin.token, { title: 'Dur', duration: '99' }, { video: await makeMp4(fixtures, 3) });
    expect(badDuration.body.error).toBe('Duration must be in mm:ss format (e.g. 12:34)');
    expect(mediaFiles()).toEqual(before);
  });

  it('a client that disconnects mid-upload leaves nothing behind', async () => {
    const before = mediaFiles();
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}/api/admin/upload-video`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${admin.token}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(50 * 1024 * 1024),
        },
      });
      req.on('error', () => resolve());
      req.write('--x\r\nContent-Disposition: form-data; name="video"; filename="v.mp4"\r\n\r\n');
      req.write(Buffer.alloc(256 * 1024, 1), () => setTimeout(() => req.destroy(), 200));
      req.on('close', () => resolve());
    });
    for (let i = 0; i < 50 && mediaFiles().length !== before.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(mediaFiles()).toEqual(before);
  });

  it('only admins upload', async () => {
    const video = await makeMp4(fixtures, 3);
    expect((await postUpload(server.url, undefined, { title: 'x' }, { video })).status).toBe(401);
    expect((await postUpload(server.url, member.token, { title: 'x' }, { video })).status).toBe(403);
  });

  it('too large: 413 and the partial file removed', async () => {
    const small = await startTestServer(kind, { env: { MAX_UPLOAD_BYTES: '20000' } });
    try {
      const smallAdmin = await createTestUser(small.ctx, { role: 'admin' });
      const video = await makeMp4(fixtures, 3);
      expect(fs.statSync(video).size).toBeGreaterThan(20000);
      const r = await postUpload(small.url, smallAdmin.token, { title: 'Big' }, { video });
      expect(answer(r)).toEqual({
        status: 413,
        body: { success: false, error: 'The video file is too large (limit 20000 bytes)', code: 'request.body_too_large' },
      });
      expect(filesUnder(path.join(small.store.dataDir, 'media'))).toEqual([]);
      expect((await apiClient(small.url).get('/videos')).body.data.total).toBe(0);
      // A declared length far over the limit is refused before any byte is read.
      const early = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${small.url}/api/admin/upload-video`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${smallAdmin.token}`,
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(200 * 1024 * 1024),
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        });
        req.on('error', reject);
        req.write('--x\r\n');
      });
      expect(early.status).toBe(413);
      expect(JSON.parse(early.body)).toEqual({
        success: false,
        error: 'The video file is too large (limit 20000 bytes)',
        code: 'request.body_too_large',
      });
      expect(filesUnder(path.join(small.store.dataDir, 'media'))).toEqual([]);
    } finally {
      await small.close();
    }
  });
});
