/**
 * docs/walkthrough.md runs as written: its ```sh walkthrough blocks, in order, as one bash script
 * (`set -euo pipefail`) from the repository root, against the real server started as `npm run site`
 * starts it (development, dev defaults, a generated admin password in DATA_DIR, transcoding in the
 * server), with real curl, ffmpeg, ffprobe and the tus script. The script fails on the first command
 * that fails, or on the first JSON answer without the field it reads; the test then checks what the
 * journey left: an active subscription, two videos (multipart and tus), a stream ffprobe read.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { launchServer, stopServer } from './childServer.js';
import { tmpDir } from './harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PAGE = path.join(ROOT, 'docs/walkthrough.md');

/** The page's ```sh walkthrough blocks, in order. */
function walkthroughBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

it('the page has the journey’s steps as runnable blocks, and the only other shell blocks are the ones a person runs', () => {
  const md = fs.readFileSync(PAGE, 'utf8');
  const blocks = walkthroughBlocks(md).join('\n');
  for (const step of [
    '/api/auth/register',
    '"dateOfBirth"',
    '"agreeToTerms": true',
    '/api/auth/login',
    '/approve',
    '/api/subscriptions/plans',
    '/api/payments/create-subscription-intent',
    '/api/payments/submit-bitcoin-payment',
    '/verify',
    '/api/admin/upload-video',
    'scripts/tus-upload.mjs',
    'ffprobe',
  ])
    expect(blocks).toContain(step);
  // `npm run site` (it would build and hold the terminal) and ffplay (a window) are for a person only.
  const others = [...md.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => (m[1] as string).trim());
  expect(others).toEqual([expect.stringMatching(/^npm run site/), expect.stringMatching(/^ffplay "\$HLS_URL"/)]);
});

it('its commands run as written against a development server', async () => {
  for (const tool of ['curl', 'ffmpeg', 'ffprobe', 'bash'])
    expect(
      await promisify(execFile)('sh', ['-c', `command -v ${tool}`]).then(
        () => tool,
        () => `${tool} missing`,
      ),
    ).toBe(tool);
  const dataDir = tmpDir('members-walkthrough-');
  const scratch = tmpDir('members-walkthrough-tmp-');
  // As `npm run site` runs: development, no secrets, no admin password (one is generated into DATA_DIR).
  const server = await launchServer({
    DATA_DIR: dataDir,
    NODE_ENV: 'development',
    TOKEN_SECRET: '',
    DATA_KEY_SECRET: '',
    ADMIN_EMAIL: '',
    ADMIN_PASSWORD: '',
    TRANSCODE_CONCURRENCY: '1',
  });
  try {
    const script = `set -euo pipefail\n${walkthroughBlocks(fs.readFileSync(PAGE, 'utf8')).join('\n')}`;
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, SITE: server.url, DATA_DIR: dataDir, TMPDIR: scratch };
    let out: string;
    try {
      const r = await promisify(execFile)('bash', ['-c', script], { cwd: ROOT, env, timeout: 240_000 });
      out = r.stdout;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`the walkthrough failed:\n${e.stdout}\n${e.stderr}\n--- server ---\n${server.output().slice(-3000)}`);
    }
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('ok');
    expect(out).toContain('Registration received. Your account is pending approval.');
    expect(out).toMatch(/^pending$/m);
    expect(out).toContain('User approved successfully!');
    expect(out).toMatch(/^bitcoin:bc1q\w+\?amount=/m);
    expect(out).toMatch(/^https:\/\/mempool\.space\/tx\/[0-9a-f]{64}$/m);
    expect(out).toMatch(/^active$/m);
    expect(out).toContain('transcode: completed');
    expect(out).toMatch(/^video,640,360$/m);
    expect(out).toMatch(/^audio$/m);
    // Two videos: the multipart one and the tus one, each id printed once.
    const ids = lines.filter((l) => /^[0-9a-f-]{36}$/.test(l));
    expect(new Set(ids).size).toBe(2);
    // The clip went where the page says (TMPDIR), not into the repository.
    expect(fs.existsSync(path.join(scratch, 'clip.mp4'))).toBe(true);
  } finally {
    await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}, 300_000);
