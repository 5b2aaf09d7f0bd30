/**
 * Leak tracing on real ffmpeg output (issue 32): a video transcoded with FORENSIC_WATERMARK, two
 * members' streams saved with ffmpeg from their own signed playlists (key included), then leaked:
 * cut, cropped a few pixels, scaled to 640×360 and re-encoded at CRF 28. Each copy names its
 * member; a copy of the unmarked upload and a 10 s copy name no one; the two members' streams
 * differ by ≥ 42 dB PSNR; and 200 random codes never match either marked copy's bits, while the
 * unmarked copy reads too few bits for any code to match (docs/leak-tracing.md).
 * A harder copy — 5 % cropped each way, brighter, more contrast, CRF 32, 105 s — still names its member.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer, tmpDir } from '../../test/harness';
import { ingestVideoFile } from '../catalog/ingest';
import { mediaBinaries } from '../media/ffmpeg';
import { createTestUser, grantActiveSubscriptionForTest, type TestViewer } from '../streaming/viewers.testkit';
import { transcodeForTest } from '../transcode/transcode.testkit';
import { allowedErrors, codeBits, minimumBits } from './code';
import { describeIdentification, identifyCopy, readCopy, storedReference } from './identify';

const run = promisify(execFile);
const ffmpeg = (args: string[]) =>
  run(mediaBinaries().ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], { timeout: 300_000 });
const fixtures = tmpDir('forensics-');
afterAll(() => (process.env.KEEP_FIXTURES ? undefined : fs.rmSync(fixtures, { recursive: true, force: true })));

/** 120 s of smooth, never-repeating picture (a test card scaled up from 96×54) with a tone: small and cheap to encode. */
async function sourceClip(): Promise<string> {
  const file = path.join(fixtures, 'source.mp4');
  if (fs.existsSync(file)) return file;
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc2=size=96x54:rate=24:duration=120,scale=320:180:flags=bicubic'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=120'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '18', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
  ]);
  return file;
}

/** A leak: `seconds` from `start`, by default cropped by a few pixels, scaled to 640×360, CRF 28. */
async function leak(
  input: string,
  name: string,
  start: number,
  seconds: number,
  { filter = 'crop=iw-6:ih-4:3:2,scale=640:360', crf = 28 } = {},
): Promise<string> {
  const out = path.join(fixtures, name);
  await ffmpeg([
    ...['-ss', String(start), '-i', input, '-t', String(seconds)],
    ...['-vf', filter, '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', String(crf), '-an', out],
  ]);
  return out;
}

async function psnr(a: string, b: string): Promise<number> {
  const { stderr } = await run(
    mediaBinaries().ffmpeg,
    ['-hide_banner', '-nostdin', '-i', a, '-i', b, '-lavfi', 'psnr', '-f', 'null', '-'],
    {
      timeout: 300_000,
    },
  );
  return Number(/PSNR .*average:([\d.]+|inf)/.exec(stderr)?.[1]);
}

forEachStore('leak tracing', (kind) => {
  let server: TestServer;
  let admin: TestViewer;
  let members: TestViewer[];
  let videoId: string;
  const saved: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { env: { FORENSIC_WATERMARK: 'true', TRANSCODE_PRESET: 'ultrafast' } });
    admin = await createTestUser(server.ctx, { role: 'admin' });
    members = [await createTestUser(server.ctx), await createTestUser(server.ctx)];
    for (const m of members) await grantActiveSubscriptionForTest(server.ctx, m.id);
    const copy = path.join(fixtures, `upload-${kind}.mp4`);
    fs.copyFileSync(await sourceClip(), copy);
    const r = await ingestVideoFile(server.ctx, { filePath: copy, title: 'marked', accessLevel: 'premium', actorId: admin.id });
    if (!r.ok) throw new Error(r.error.message);
    videoId = r.videoId;
    expect(await transcodeForTest(server, videoId)).toBe('completed');
    // Each member saves their stream with ffmpeg from their own signed playlist and key.
    const api = apiClient(server.url);
    for (const [i, m] of members.entries()) {
      const stream = await api.get(`/videos/${videoId}/stream`, m.token);
      expect(stream.status).toBe(200);
      const out = path.join(fixtures, `saved-${kind}-${i}.mp4`);
      await ffmpeg(['-i', new URL(stream.body.data.hlsUrl, server.url).toString(), '-c', 'copy', out]);
      saved.push(out);
    }
  }, 600_000);
  afterAll(() => server?.close());

  it('stores two variants per segment position, 1 s segments, and a media playlist per member mixing them', async () => {
    const folder = path.join(server.store.dataDir, 'media', 'videos', videoId, 'hls');
    const files = fs.readdirSync(path.join(folder, '180p'));
    const a = files.filter((f) => /^seg_\d{5}\.ts$/.test(f));
    const b = files.filter((f) => /^seg_\d{5}b\.ts$/.test(f));
    expect(a.length).toBeGreaterThanOrEqual(119);
    expect(b.length).toBe(a.length);
    expect(fs.readdirSync(path.join(folder, 'watermark')).sort()).toEqual(['ref-a.gray', 'ref-b.gray', 'ref.json']);
    const api = apiClient(server.url);
    const lists = [];
    for (const m of members) {
      const stream = await api.get(`/videos/${videoId}/stream`, m.token);
      const media = await fetch(new URL(stream.body.data.hlsUrl.replace('master.m3u8', '180p/index.m3u8'), server.url));
      expect(media.headers.get('cache-control')).toBe('private, no-store');
      const text = await media.text();
      expect(text).not.toContain('forensic');
      lists.push(
        text
          .split('\n')
          .filter((l) => l.startsWith('../segments/'))
          .map((l) => /seg_\d+b?\.ts/.exec(l)?.[0]),
      );
    }
    expect(lists[0]).toHaveLength(a.length);
    expect(lists[0]).not.toEqual(lists[1]);
    expect(new Set(lists.flat()).size).toBeLessThanOrEqual(2 * a.length);
  });

  it("two members' saved streams differ by at least 42 dB PSNR", async () => {
    const db = await psnr(saved[0] as string, saved[1] as string);
    console.log(`[forensics] PSNR between two members' streams: ${db.toFixed(2)} dB`);
    expect(db).toBeGreaterThanOrEqual(42);
  }, 120_000);

  it('each leaked copy (cut, cropped, 640×360, CRF 28) names its member, with and without --video', async () => {
    const copies = [
      await leak(saved[0] as string, `leak-${kind}-0.mp4`, 4.4, 75),
      await leak(saved[1] as string, `leak-${kind}-1.mp4`, 5.5, 75),
    ];
    for (const [i, file] of copies.entries()) {
      const r = await identifyCopy(server.ctx, file, i === 0 ? { videoId } : {});
      console.log(`[forensics] ${describeIdentification(r)}`);
      expect(r).toMatchObject({ kind: 'identified', videoId, memberId: members[i]?.id, email: members[i]?.email });
    }
  }, 300_000);

  // The detector's arithmetic, whatever the store: once is enough. Declared for SQLite only, so the
  // PostgreSQL variant neither runs it nor counts it as passed.
  if (kind === 'sqlite') {
    // How many bits such a copy reads depends on the video's mark pattern (pattern.ts: its cells and
    // phase come from the video's id, new at every run): over 24 patterns, a 75 s copy of this
    // source read 39 to 71 clear bits of 74, the fewest a hair above the 37 any verdict needs — so a
    // run now and then drew a pattern whose copy named no one. 105 s gives every pattern room (at
    // the worst rate seen, ~55 clear bits of 104, with 3 misread allowed); the claim is the same.
    it('a harder copy (5 % cropped each way, brighter, more contrast, CRF 32) still names its member', async () => {
      const out = await leak(saved[0] as string, `hard-${kind}.mp4`, 10.3, 105, {
        filter: 'crop=iw*0.95:ih*0.95:iw*0.02:ih*0.03,scale=640:360,eq=contrast=1.1:brightness=0.03',
        crf: 32,
      });
      const r = await identifyCopy(server.ctx, out, { videoId });
      console.log(`[forensics] harder copy: ${describeIdentification(r)}`);
      // The whole answer on a failure (segments read, the stretch aligned): a fresh clone's run saw
      // "no match" here once, without them.
      expect(r, JSON.stringify(r)).toMatchObject({ kind: 'identified', memberId: members[0]?.id });
    }, 300_000);
  }

  it('a copy of the unmarked upload names no one; a 10 s copy is too short and never names anyone', async () => {
    const unmarked = await leak(await sourceClip(), `leak-${kind}-unmarked.mp4`, 5, 75);
    const r = await identifyCopy(server.ctx, unmarked, { videoId });
    expect(r.kind).toBe('no-match');
    expect(describeIdentification(r)).toBe('no match');
    for (const [i, start] of [3.3, 21.1, 40].entries()) {
      const short = await leak(saved[i % 2] as string, `leak-${kind}-short-${i}.mp4`, start, 10);
      const s = await identifyCopy(server.ctx, short, { videoId });
      expect(s.kind).toBe('too-short');
      expect(describeIdentification(s)).toMatch(/^too short: needs at least \d+ s$/);
    }
  }, 300_000);

  // The same arithmetic on the same files: once is enough (SQLite only, as above).
  if (kind === 'sqlite') {
    it("false positives: 200 random codes against each marked copy's bits match none; the unmarked copy reads too few bits to match any code", async () => {
      const ref = storedReference(path.join(server.store.dataDir, 'media', 'videos', videoId, 'hls'), videoId);
      const starts = ref.segmentStarts;
      /** The clear bits read from a copy made by an earlier test. */
      const clearBits = async (name: string) => (await readCopy(ref, path.join(fixtures, name))).reads.filter((r) => r.bit !== null);
      let trials = 0;
      let matches = 0;
      let closest = Number.POSITIVE_INFINITY;
      for (const name of [`leak-${kind}-0.mp4`, `leak-${kind}-1.mp4`]) {
        const reads = await clearBits(name);
        const allowed = allowedErrors(reads.length);
        console.log(`[forensics] ${name}: ${reads.length} clear bits, up to ${allowed ?? '-'} differing allowed`);
        // Enough bits for the rule to name someone: a random code could match here, were the rule loose.
        expect(reads.length, name).toBeGreaterThanOrEqual(minimumBits());
        if (allowed === null) throw new Error(`${name}: ${reads.length} clear bits name no one`);
        for (let k = 0; k < 200; k++) {
          const bits = codeBits(randomBytes(32), videoId, 0, starts.length);
          const distance = reads.filter((r) => bits[r.index] !== r.bit).length;
          closest = Math.min(closest, distance);
          trials++;
          if (distance <= allowed) matches++;
        }
      }
      console.log(`[forensics] false positives: ${matches} of ${trials} random codes; closest distance ${closest}`);
      expect({ trials, matches }).toEqual({ trials: 400, matches: 0 });
      // No mark, nothing to read: fewer clear bits than any verdict needs, so no code, random or a member's, can match.
      const unmarked = await clearBits(`leak-${kind}-unmarked.mp4`);
      console.log(`[forensics] leak-${kind}-unmarked.mp4: ${unmarked.length} clear bits`);
      expect(unmarked.length).toBeLessThan(minimumBits());
    }, 300_000);
  }
});
