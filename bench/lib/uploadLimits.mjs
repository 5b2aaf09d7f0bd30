// The physical limit an upload is compared with, measured on this machine in the same run: nginx
// writing the request body to a file (`client_body_in_file_only`, a WebDAV PUT that renames nginx's
// body file into place): HTTP in over loopback, bytes out to the same disk, in C with 1 MiB
// buffers. Nothing that receives a body over HTTP and stores it should beat it.
// (`dd` of the same file was tried as a disk limit beside it and is not one on this VM: bs=8M
// 190-450 MB/s, bs=1M 215-300 MB/s, while nginx wrote 0.5-1.6 GB/s moments apart.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../scripts/freePort.mjs';
import { ownChild } from './ownChildren.mjs';

/** nginx (Debian's, with the DAV module) that stores every PUT body under `dir/files`. */
export async function startNginxBodySink(dir) {
  if (!fs.existsSync('/usr/sbin/nginx')) throw new Error('/usr/sbin/nginx is missing (Debian: apt-get install -y nginx)');
  const port = await freePort();
  for (const d of ['files', 'body', 'tmp']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.chmodSync(dir, 0o777);
  for (const d of ['files', 'body', 'tmp']) fs.chmodSync(path.join(dir, d), 0o777);
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp; uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
    server {
        listen 127.0.0.1:${port};
        client_max_body_size 0;
        client_body_in_file_only on;
        client_body_buffer_size 1m;
        location / {
            root ${dir}/files;
            dav_methods PUT;
            create_full_put_path on;
        }
    }
}
`,
  );
  const child = ownChild(
    spawn('/usr/sbin/nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.end(() => resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || i > 100)
      throw new Error(`nginx body sink did not start: ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let n = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    /** PUTs `file` (1 MiB reads, as the other clients); resolves with MB/s. */
    async put(file) {
      const started = performance.now();
      const status = await new Promise((resolve, reject) => {
        const req = http.request(`http://127.0.0.1:${port}/upload-${n++}`, {
          method: 'PUT',
          headers: { 'content-length': String(fs.statSync(file).size) },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', reject);
        fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(req);
      });
      if (status !== 201 && status !== 204) throw new Error(`nginx body sink answered ${status}`);
      const seconds = (performance.now() - started) / 1000;
      for (const f of fs.readdirSync(path.join(dir, 'files'))) fs.rmSync(path.join(dir, 'files', f), { force: true });
      return fs.statSync(file).size / 1024 / 1024 / seconds;
    },
    stop() {
      child.kill('SIGTERM');
      return new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}
