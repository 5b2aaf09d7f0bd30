/**
 * A bench's servers end with the bench (bench/lib/ownChildren.mjs), however the bench ends: an
 * error, SIGTERM, or its output pipe closing (`pnpm bench | head`). Each case starts a stand-in
 * bench that owns one long-lived child and prints its pid, ends the bench that way, and expects the
 * child gone. Before, a bench that died early left its API servers and nginx running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processAlive as alive } from '../src/shared/processAlive';

const OWN_CHILDREN = pathToFileURL(path.resolve(import.meta.dirname, '../../../bench/lib/ownChildren.mjs')).href;

/**
 * A bench stand-in: starts a child that would run for an hour (owned through ownChild unless `owned`
 * is false), prints its pid, then does `then`.
 */
function standIn(then: string, { owned = true } = {}): ChildProcess {
  const spawnChild = "spawn(process.execPath, ['-e', 'setTimeout(() => {}, 3600000)'], { stdio: 'ignore' })";
  const script = `
    import { spawn } from 'node:child_process';
    import { ownChild } from ${JSON.stringify(OWN_CHILDREN)};
    const child = ${owned ? `ownChild(${spawnChild})` : spawnChild};
    console.log('child', child.pid);
    ${then}`;
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
}

const childPid = (bench: ChildProcess) =>
  new Promise<number>((resolve, reject) => {
    let out = '';
    bench.stdout?.on('data', (d) => {
      out += d;
      const m = /child (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    bench.once('exit', (code) => reject(new Error(`the stand-in exited (${code}) before printing its child: ${out}`)));
  });

/** Resolves once `pid` is gone; the bound only catches a child that never ends. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 600 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

describe("a bench's children end with it", () => {
  it('when the bench throws', async () => {
    const bench = standIn(`setTimeout(() => { throw new Error('bench failed'); }, 50);`);
    const pid = await childPid(bench);
    expect(alive(pid)).toBe(true);
    await new Promise((r) => bench.once('exit', r));
    expect(await gone(pid)).toBe(true);
  });

  it('when the bench is sent SIGTERM', async () => {
    const bench = standIn(`setTimeout(() => {}, 3600000);`);
    const pid = await childPid(bench);
    bench.kill('SIGTERM');
    await new Promise((r) => bench.once('exit', r));
    expect(await gone(pid)).toBe(true);
  });

  it('when the pipe it prints to closes (EPIPE)', async () => {
    const bench = standIn(`setInterval(() => console.log('figure'), 20);`);
    const pid = await childPid(bench);
    bench.stdout?.destroy();
    await new Promise((r) => bench.once('exit', r));
    expect(await gone(pid)).toBe(true);
  });

  it('the control: a child not owned outlives a bench that throws (what the cases above prevent)', async () => {
    const bench = standIn(`setTimeout(() => { throw new Error('bench failed'); }, 50);`, { owned: false });
    const pid = await childPid(bench);
    await new Promise((r) => bench.once('exit', r));
    try {
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});
