/**
 * Issue 27 finding 10: ffmpeg reads an original in the object store through a presigned URL, and
 * its stderr names that URL, signature and credential included. A transcode that fails on S3 must
 * leave no signature in what is kept: the TranscodeFailed event, the log line, the admin's answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, startTestServer, type TestServer, testEnv, tmpDir } from '../../test/harness.js';
import { bucketKeys, mediaKinds, testS3Client } from '../../test/s3.js';
import { ingestVideoFile } from '../catalog/ingest.js';
import { createLogger } from '../logging/logger.js';
import { makeSizedClip } from '../media/media.testkit.js';
import { createTestUser, type TestViewer } from '../streaming/viewers.testkit.js';

const fixtures = tmpDir('redaction-fixtures-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

/** A presigned URL's secret parts with their value (not the redaction marker). */
const SIGNED = /X-Amz-(Signature|Credential)=(?!\[redacted\])[^&\s"]+/;

describe.runIf(mediaKinds().includes('s3'))('a failed transcode on the object store keeps no signature [s3]', () => {
  let server: TestServer;
  let admin: TestViewer;
  let logged = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += String(chunk);
      done();
    },
  });

  beforeAll(async () => {
    const logger = createLogger(testEnv({ LOG_FORMAT: 'json', LOG_LEVEL: 'info' }), sink);
    server = await startTestServer('sqlite', { media: 's3', env: { TRANSCODE_CONCURRENCY: '0', TRANSCODE_PRESET: 'ultrafast' }, logger });
    admin = await createTestUser(server.ctx, { role: 'admin' });
  }, 60_000);
  afterAll(() => server?.close());

  it('records ffmpeg’s message with the URL’s signature and credential redacted: event, log line, admin answer', async () => {
    const clip = await makeSizedClip(fixtures, { width: 320, height: 240, seconds: 2 });
    const copy = path.join(fixtures, 'copy.mp4');
    fs.copyFileSync(clip, copy);
    const ingested = await ingestVideoFile(server.ctx, { filePath: copy, title: 'cut short', accessLevel: 'free', actorId: admin.id });
    if (!ingested.ok) throw new Error(ingested.error.message);
    const id = ingested.videoId;
    // The original in the bucket replaced by its first 2000 bytes: ffmpeg cannot open it and says so, URL first.
    const bucket = server.bucket?.bucket as string;
    const key = (await bucketKeys(bucket)).find((k) => k.endsWith(`videos/${id}/video.mp4`)) as string;
    await testS3Client().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: fs.readFileSync(clip).subarray(0, 2000) }));
    server = await server.restart({ TRANSCODE_CONCURRENCY: '1' });
    for (;;) {
      const row = await server.ctx.db.get<{ transcode_status: string }>('SELECT transcode_status FROM videos WHERE id = ?', [id]);
      if (row?.transcode_status === 'failed') break;
      expect(row?.transcode_status).not.toBe('completed');
      await new Promise((r) => setTimeout(r, 200));
    }

    const failed = (await server.ctx.store.readStream(`transcode-${id}`)).find((e) => e.type === 'TranscodeFailed');
    const error = (failed?.data as { error: string } | undefined)?.error ?? '';
    // ffmpeg's message names the presigned URL (so there was something to redact), without its secrets.
    expect(error).toContain('X-Amz-Signature=[redacted]');
    expect(error).toContain('X-Amz-Credential=[redacted]');
    expect(error).not.toMatch(SIGNED);

    // The runner loop's line that ends the job (transcode/runnerLoop.ts), its reason in `err`.
    const line = logged.split('\n').find((l) => l.includes(`"transcode of ${id} failed"`));
    expect(line).toBeDefined();
    expect(line).toContain('[redacted]');
    expect(logged).not.toMatch(SIGNED);

    const answer = await apiClient(server.url).get(`/admin/videos/${id}`, admin.token);
    expect(answer.status).toBe(200);
    expect(answer.body.data.transcode.status).toBe('failed');
    expect(answer.body.data.transcode.error).toBe(error);
  }, 120_000);
});
