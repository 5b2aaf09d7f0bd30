// Shared by the media benches (media-nginx.mjs, media-s3.mjs): wrk fetching random 1 MiB byte
// ranges of one file, and a throwaway nginx started from a rendered configuration.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ownChild } from './ownChildren.mjs';

const MiB = 1024 * 1024;

export const listening = (port) =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

/**
 * Runs wrk against `url` for `seconds` with `connections`, each request a random 1 MiB range of a
 * `size`-byte file; answers MB/s. Any failed or non-2xx answer throws.
 * @param {{ label: string, url: string, size: number, work: string, connections: number, seconds: number }} o
 */
export function wrkRanges({ label, url, size, work, connections, seconds }) {
  const script = path.join(work, 'ranges.lua');
  fs.writeFileSync(
    script,
    `local chunks = ${Math.floor(size / MiB)}
math.randomseed(42)
request = function()
  local first = math.random(0, chunks - 1) * ${MiB}
  return wrk.format("GET", nil, { ["Range"] = "bytes=" .. first .. "-" .. (first + ${MiB - 1}) })
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d\\n", summary.bytes, summary.duration, summary.requests,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`,
  );
  // A generous timeout: on a loaded machine a slow answer is a slow answer, not a failure.
  const r = spawnSync('/usr/bin/wrk', ['-t', '2', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '30s', '-s', script, url], {
    encoding: 'utf8',
  });
  const m = /RESULT (\d+) (\d+) (\d+) (\d+)/.exec(r.stdout);
  if (!m) throw new Error(`wrk failed for ${label}: ${r.stdout}${r.stderr}`);
  const [bytes, micros, requests, errors] = m.slice(1).map(Number);
  if (errors > 0) throw new Error(`${label}: ${errors} failed or non-2xx answers of ${requests}`);
  return { label, mbps: bytes / MiB / (micros / 1e6), requests };
}

/**
 * Debian's nginx on `conf` (a whole nginx.conf under `prefix`), resolved once `port` accepts
 * connections; the child is returned for the caller to stop.
 */
export async function startNginx(prefix, conf, port) {
  fs.writeFileSync(path.join(prefix, 'nginx.conf'), conf);
  const child = ownChild(
    spawn('/usr/sbin/nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-e', path.join(prefix, 'error.log')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  for (let i = 0; !(await listening(port)); i++) {
    const log = path.join(prefix, 'error.log');
    if (child.exitCode !== null || i > 200)
      throw new Error(`nginx did not start: ${fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : `exit ${child.exitCode}`}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}
