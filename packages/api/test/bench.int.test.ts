/**
 * `pnpm bench -- --smoke` works end to end: every bench runs, measures its reference in the same
 * invocation, and the runs append tables holding every figure of issue 16's list. No figure is
 * asserted (the machine is shared, and a smoke run's sizes measure nothing): only that each was
 * produced. One test per bench, so a failure or a hang names its bench and shows its output, and the
 * bench's whole process group (its servers, wrk, ffmpeg) is killed when its test ends, however it
 * ends. The smoke sizes keep this at a few minutes of the suite; `--quick` is for people.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, onTestFinished } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** Every bench `pnpm bench` runs (scripts/bench.mjs lists them the same way). */
const BENCHES = fs
  .readdirSync(path.join(ROOT, 'bench'))
  .filter((f) => /\.(mjs|ts)$/.test(f) && !f.startsWith('_'))
  .sort();
/** A bound that only catches a hang: the slowest smoke bench takes about a minute on a quiet 2-core machine. */
const HANG_MS = 900_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-test-'));
const results = path.join(dir, 'RESULTS.md');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Runs a command in a process group of its own, without blocking this worker (a synchronous spawn
 * starves vitest's RPC for minutes); the group is killed when the calling test ends.
 */
function run(args: string[], env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  let child: ChildProcess | undefined;
  onTestFinished(() => {
    try {
      if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  });
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, output }));
  });
}

for (const bench of BENCHES) {
  it(
    `pnpm bench -- --smoke ${bench} runs and records its table`,
    async () => {
      const before = fs.existsSync(results) ? fs.readFileSync(results, 'utf8').length : 0;
      const r = await run(['scripts/bench.mjs', '--smoke', bench], { BENCH_RESULTS_FILE: results });
      expect(r.status, r.output).toBe(0);
      const section = fs.readFileSync(results, 'utf8').slice(before);
      expect(section, r.output).toMatch(new RegExp(`^## .* UTC — smoke run of bench/${bench.replace('.', '\\.')}$`, 'm'));
      expect(section).toMatch(/Machine: \d+ cores .* GiB memory/);
      expect(section).toContain('A smoke run: every step once');
    },
    HANG_MS,
  );
}

it('the tables hold every figure of the list', () => {
  const md = fs.readFileSync(results, 'utf8');
  for (const figure of [
    /\| Event append, single-event commits, 16 writers, SQLite( \([^|]*\))? \| [\d,.]+ commits\/s \| [\d,.]+ commits\/s \(plain INSERTs\) \| [\d.]+× \|/,
    // A row may carry a note (e.g. why a rate beat its reference) after the figure.
    /\| Event append, single-event commits, 16 writers, PostgreSQL( \([^|]*\))? \|/,
    /\| Projection rebuild from [\d,]+ events, SQLite .*\(reading them\)/,
    /\| Projection rebuild from [\d,]+ events, PostgreSQL .*\(reading them\)/,
    /\| Cost growth GET \/api\/videos at [\d,]+ events \|/,
    /\| Cost growth GET \/api\/videos\/\{id\} at/,
    /\| Cost growth GET \/api\/admin\/stats at/,
    /\| Cost growth GET \/api\/admin\/users\/pending at/,
    /\| Cost growth GET \/api\/admin\/pending-payments at/,
    /\| Cost growth login/,
    /\| Cost growth: server start-up at/,
    /\| JSON hot path GET \/api\/videos\/\{id\}, subscriber/,
    /\| JSON hot path GET \/api\/videos\/\{id\}\/stream, subscriber/,
    // Measured in interleaved rounds: median (min–max) of each figure and of the rounds' ratios.
    /\| Media through nginx [^|]*\| [\d,.]+ \([\d,.]+–[\d,.]+\) MB\/s \| [\d,.]+ \([\d,.]+–[\d,.]+\) MB\/s \(nginx serving the file\) \| [\d.]+× \([\d.]+–[\d.]+×\) \|/,
    /\| Media directly from Node .*\(nginx serving the file\)/,
    /\| Upload [\d,]+ MB multipart .*\(nginx writing the body to a file\)/,
    /\| Upload [\d,]+ MB over tus, one PATCH [^|]*\| [\d,.]+ \([\d,.]+–[\d,.]+\) MB\/s \| [\d,.]+ \([\d,.]+–[\d,.]+\) MB\/s \(nginx writing the body to a file\)/,
    // The media tier on the object store (bench/media-s3.mjs, bench/runners.ts).
    /\| Upload [\d,]+ MB to the object store, multipart route [^|]*\| [\d,.]+ \([\d,.]+–[\d,.]+\) MB\/s \| [\d,.]+ \([\d,.]+–[\d,.]+\) MB\/s \(the AWS SDK storing the file/,
    /\| Upload [\d,]+ MB to the object store over tus, one PATCH .*\(the AWS SDK storing the file/,
    /\| Media from the object store through nginx .*\(presigned GET straight from the store\)/,
    /\| Media decisions of the API alone .* req\/s \|/,
    /\| Transcode CPU per second of video, one job by pnpm cli transcode-runner .*\(the same ffmpeg command alone on the same presigned original\)/,
    /\| Transcode batch of \d+ queued .* videos\/min \(one runner\)/,
    /\| Login: argon2id verifications per core \(m=19 MiB, t=2, p=1; OWASP minimum met\)/,
    /\| Web: first-load JS of \/ /,
    /\| Web: time until the age gate is visible/,
    // The live chat across two processes (bench/chat.ts).
    /\| Chat fan-out p50, reply posted through one API process to the member's socket on the other, PostgreSQL, [\d,]+ members connected/,
    /\| Chat fan-out p99, reply posted through one API process/,
    /\| Chat memory per idle WebSocket connection .* KiB \|/,
    /\| Chat messages accepted .* messages\/s \|/,
    // Live shows on one API process (bench/live.ts): glass-to-glass from a burned-in clock, the ladder's CPU, viewers.
    /\| Live glass-to-glass p50, clock burned into .* s \| [\d,.]+ s \(one segment\) \|/,
    /\| Live glass-to-glass p95 /,
    /\| Live ladder CPU per second of live video .* CPU-s\/video-s \|/,
    /\| Live viewers served by one API process at the live edge .* viewers \|/,
  ])
    expect(md).toMatch(figure);
});
