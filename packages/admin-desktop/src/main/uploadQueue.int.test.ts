/**
 * The upload queue over tus with the real tus-js-client: a real API server, real generated videos.
 * Progress, the two-at-a-time limit, pause/resume, retry while the server is down, and an upload
 * interrupted halfway by a server restart that resumes from the server's offset.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, makeVideo, startTestServer, type TestServer, tmpDir } from '../../test/fixtures.js';
import type { TusEndpoint } from './tusClient.js';
import { type QueueSnapshot, type UploadInput, UploadQueue } from './uploadQueue.js';

const dir = tmpDir('desktop-queue-');
const files: Record<string, string> = {};
let server: TestServer;
let token: string;

beforeAll(async () => {
  files.a = makeVideo(dir, 'a.mp4', { seconds: 2 });
  files.b = makeVideo(dir, 'b.mp4', { seconds: 3 });
  files.c = makeVideo(dir, 'c.mp4', { seconds: 4 });
  files.big = makeVideo(dir, 'big.mp4', { seconds: 4, width: 320, height: 240, noise: true });
  server = await startTestServer('sqlite', { env: { SHUTDOWN_TIMEOUT_MS: '200' } });
  token = await adminToken(server);
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The server's tus endpoint, recording the offsets it reports on resume (HEAD). */
function transport(log: { statusOffsets: number[] } = { statusOffsets: [] }): TusEndpoint {
  return {
    baseUrl: () => server.url,
    accessToken: () => token,
    onResponse(method, status, headers) {
      if (method === 'HEAD' && status === 200) log.statusOffsets.push(Number(headers.uploadOffset));
    },
  };
}

function input(name: keyof typeof files, title: string): UploadInput {
  const filePath = files[name] as string;
  return { filePath, fileName: `${name}.mp4`, size: fs.statSync(filePath).size, metadata: { title, accessLevel: 'free', tags: ['queue'] } };
}

async function videoDuration(videoId: string): Promise<number> {
  const events = await server.ctx.store.readStream(`video-${videoId}`);
  return (events[0]?.data as { durationSeconds: number } | undefined)?.durationSeconds ?? 0;
}

const waitFor = async (cond: () => boolean, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('upload queue', () => {
  let queue: UploadQueue | undefined;
  afterEach(() => queue?.pauseAll());

  it('uploads three files at most two at a time with per-file and overall progress', async () => {
    queue = new UploadQueue(transport(), { chunkSize: 16 * 1024, progressIntervalMs: 0 });
    const snaps: QueueSnapshot[] = [];
    queue.onChange((s) => snaps.push(s));
    const ids = queue.add([input('a', 'Clip A'), input('b', 'Clip B'), input('c', 'Clip C')]);
    await queue.whenIdle();
    const end = queue.snapshot();
    expect(end.items.map((i) => i.state)).toEqual(['completed', 'completed', 'completed']);
    expect(end.uploadedBytes).toBe(end.totalBytes);
    expect(Math.max(...snaps.map((s) => s.active))).toBe(2);
    expect(snaps.some((s) => s.items.filter((i) => i.state === 'uploading').length > 2)).toBe(false);
    // Progress: many events, each file's bytes never go back, speed was measured.
    expect(snaps.length).toBeGreaterThan(10);
    for (const id of ids) {
      const series = snaps.map((s) => s.items.find((i) => i.id === id)?.uploadedBytes ?? 0);
      expect(series.every((v, k) => k === 0 || v >= (series[k - 1] as number))).toBe(true);
      expect(series.some((v) => v > 0 && v < (end.items.find((i) => i.id === id)?.size ?? 0))).toBe(true);
    }
    expect(snaps.some((s) => s.speed > 0)).toBe(true);
    expect(await videoDuration(end.items[0]?.videoId as string)).toBe(2);
    expect(await videoDuration(end.items[2]?.videoId as string)).toBe(4);
  });

  it('pauses and resumes without re-sending what the server has', async () => {
    const log = { statusOffsets: [] as number[] };
    queue = new UploadQueue(transport(log), { chunkSize: 32 * 1024, progressIntervalMs: 0 });
    const [id] = queue.add([input('big', 'Paused clip')]) as [string];
    const size = fs.statSync(files.big as string).size;
    await waitFor(() => (queue?.snapshot().items[0]?.uploadedBytes ?? 0) > size / 3);
    queue.pause(id);
    await waitFor(() => queue?.snapshot().active === 0);
    const paused = queue.snapshot().items[0];
    expect(paused?.state).toBe('paused');
    await new Promise((r) => setTimeout(r, 200));
    expect(queue.snapshot().items[0]?.sentBytes).toBe(paused?.sentBytes);
    queue.resume(id);
    await queue.whenIdle();
    const done = queue.snapshot().items[0];
    expect(done?.state).toBe('completed');
    expect(log.statusOffsets[0]).toBeGreaterThan(size / 4);
    // At most the part of one chunk that was in flight is sent twice.
    expect(done?.sentBytes).toBeLessThanOrEqual(size + 32 * 1024);
  });

  it('retries with back-off while the server is unreachable, then completes', async () => {
    // The first attempts go to a port nothing listens on (connection refused), then the server "comes back".
    let reachable = false;
    const real: TusEndpoint = { baseUrl: () => (reachable ? server.url : 'http://127.0.0.1:9'), accessToken: () => token };
    queue = new UploadQueue(real, { chunkSize: 64 * 1024, backoffBaseMs: 50, backoffMaxMs: 400, maxRetries: 30, progressIntervalMs: 0 });
    const snaps: QueueSnapshot[] = [];
    queue.onChange((s) => snaps.push(s));
    const started = Date.now();
    queue.add([input('a', 'Retried clip')]);
    await waitFor(() => (queue?.snapshot().items[0]?.attempts ?? 0) >= 3);
    // Back-off doubles: 50 + 100 ms at least before the third attempt.
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    reachable = true;
    await queue.whenIdle();
    expect(queue.snapshot().items[0]?.state).toBe('completed');
    expect(snaps.filter((s) => s.items[0]?.state === 'retrying').length).toBeGreaterThanOrEqual(3);
    expect(snaps.some((s) => /Network error/.test(s.items[0]?.error ?? ''))).toBe(true);
  });

  it('resumes an upload interrupted halfway by a server restart from the server offset', async () => {
    const log = { statusOffsets: [] as number[] };
    queue = new UploadQueue(transport(log), {
      chunkSize: 24 * 1024,
      backoffBaseMs: 50,
      backoffMaxMs: 400,
      maxRetries: 30,
      progressIntervalMs: 0,
    });
    const size = fs.statSync(files.big as string).size;
    let sentBeforeRestart = -1;
    let restarting: Promise<void> | undefined;
    queue.onChange((s) => {
      const item = s.items[0];
      if (!restarting && item && item.uploadedBytes >= size / 2) {
        sentBeforeRestart = item.sentBytes;
        restarting = server.restart({ PORT: String(server.port) }).then((next) => {
          server = next;
        });
      }
    });
    queue.add([input('big', 'Interrupted clip')]);
    await waitFor(() => restarting !== undefined);
    await restarting;
    await queue.whenIdle();
    const done = queue.snapshot().items[0];
    expect(done?.state, done?.error).toBe('completed');
    // The resume started from the middle, and what was sent after the restart is less than the file.
    const resumedFrom = log.statusOffsets[0] ?? 0;
    expect(resumedFrom).toBeGreaterThan(size / 3);
    expect(resumedFrom).toBeLessThan(size);
    const sentAfter = (done?.sentBytes ?? 0) - sentBeforeRestart;
    expect(sentAfter).toBeLessThan(size);
    expect(sentAfter).toBeLessThanOrEqual(size - resumedFrom + 24 * 1024 * 2);
    expect(await videoDuration(done?.videoId as string)).toBe(4);
  });

  it('cancels: the server drops the partial file (tus termination)', async () => {
    queue = new UploadQueue(transport(), { chunkSize: 16 * 1024, progressIntervalMs: 0 });
    const [id] = queue.add([input('big', 'Canceled clip')]) as [string];
    await waitFor(() => (queue?.snapshot().items[0]?.uploadedBytes ?? 0) > 0 && Boolean(queue?.snapshot().items[0]?.uploadId));
    const uploadId = queue.snapshot().items[0]?.uploadId as string;
    await queue.cancel(id);
    expect(queue.snapshot().items[0]?.state).toBe('canceled');
    const res = await fetch(`${server.url}/api/admin/uploads/${uploadId}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(404);
    expect(fs.existsSync(path.join(server.store.dataDir, 'uploads', 'tus', uploadId))).toBe(false);
  });

  it('shows the server error on a refused file and does not retry it', async () => {
    queue = new UploadQueue(transport(), { progressIntervalMs: 0 });
    queue.add([{ ...input('a', 'x'), metadata: { title: 'Bad', durationText: '99' } }]);
    await queue.whenIdle();
    const item = queue.snapshot().items[0];
    expect(item?.state).toBe('failed');
    expect(item?.error).toMatch(/mm:ss/);
    expect(item?.attempts).toBe(0);
  });
});

describe('caption sidecars', () => {
  it('a video uploaded with clip.en.vtt and clip.pt-BR.srt beside it gets both tracks (the SRT as WebVTT); a bad one is reported on the row', async () => {
    const sub = fs.mkdtempSync(path.join(dir, 'captions-'));
    const video = path.join(sub, 'clip.mp4');
    fs.copyFileSync(files.a as string, video);
    fs.writeFileSync(path.join(sub, 'clip.en.vtt'), 'WEBVTT\n\n00:00:00.100 --> 00:00:01.500\nHello\n');
    fs.writeFileSync(path.join(sub, 'clip.pt-BR.srt'), '1\n00:00:00,100 --> 00:00:01,500\nOlá\n');
    fs.writeFileSync(path.join(sub, 'clip.de.vtt'), 'not captions at all\nreally\n');
    fs.writeFileSync(path.join(sub, 'other.en.vtt'), 'WEBVTT\n');
    const queue = new UploadQueue(transport(), { progressIntervalMs: 0 });
    queue.add([
      { filePath: video, fileName: 'clip.mp4', size: fs.statSync(video).size, metadata: { title: 'Captioned', accessLevel: 'free' } },
    ]);
    await queue.whenIdle();
    const [row] = queue.snapshot().items;
    expect(row?.state).toBe('completed');
    expect(row?.captions?.added).toEqual(['en', 'pt-BR']);
    expect(row?.captions?.failed).toEqual([expect.stringMatching(/^clip\.de\.vtt: Not a valid SRT or WebVTT file: line \d+/)]);
    const res = await fetch(`${server.url}/api/admin/videos/${row?.videoId}`, { headers: { authorization: `Bearer ${token}` } });
    const { data } = (await res.json()) as { data: { captions: { language: string; label: string }[] } };
    expect(data.captions).toEqual([
      { language: 'en', label: 'English' },
      { language: 'pt-BR', label: 'Português (Brasil)' },
    ]);
  }, 60_000);
});
