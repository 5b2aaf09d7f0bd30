#!/usr/bin/env node
/**
 * Renders deploy/nginx.conf.template. The shipped deploy/nginx.conf is this with the defaults
 * below, deploy/nginx.s3.conf the same for media in an object store (`--media-store s3`); the
 * tested deployments render it with their own ports and paths.
 *
 *   node deploy/render-nginx.mjs [--upstream 127.0.0.1:8081 --upstream 127.0.0.1:8082]
 *     [--listen 80] [--server-name example.com] [--media-root /var/lib/members/media]
 *     [--media-prefix /_protected_media/] [--max-body 4g] [--cache-dir /var/cache/nginx/members-media-grants]
 *     [--media-store local|s3] [--resolver 127.0.0.53]
 *   node deploy/render-nginx.mjs --rtmp [--listen 1935] [--publish-url http://127.0.0.1:8081]
 *     [--ingest 127.0.0.1:1936] [--publish-secret …]      (deploy/nginx-rtmp.conf.template)
 *
 * With `--media-store s3` the template's `[local-media]` parts (nginx sending files from
 * MEDIA_ROOT) are left out and deploy/nginx-s3.conf.snippet's parts take their place: nginx fetches
 * each media object from the store through the presigned URL the API names, and keeps encrypted
 * HLS segments in a cache shared by every viewer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'nginx.conf.template');
export const S3_SNIPPET = path.join(path.dirname(fileURLToPath(import.meta.url)), 'nginx-s3.conf.snippet');

export const DEFAULTS = {
  upstreams: ['127.0.0.1:8081', '127.0.0.1:8082'],
  listen: '80',
  /** PUBLIC_URL's host name: the only name served; any other Host gets 444 (the default server). */
  serverName: 'localhost',
  mediaRoot: '/var/lib/members/media',
  mediaPrefix: '/_protected_media/',
  // MAX_UPLOAD_BYTES' default (4 GiB).
  maxBody: '4g',
  cacheDir: '/var/cache/nginx/members-media-grants',
  /** `local`: media files under MEDIA_ROOT (a disk nginx reads); `s3`: MEDIA_STORE=s3://… */
  mediaStore: 'local',
  /** With `s3`: the DNS resolver nginx asks for the store's host name (systemd-resolved's stub by default). */
  resolver: '127.0.0.53',
};

/** The template with only the parts for `mediaStore`, its `{{S3_HTTP}}`/`{{S3_SERVER}}` filled. */
function templateFor(mediaStore) {
  if (mediaStore !== 'local' && mediaStore !== 's3') throw new Error(`mediaStore must be local or s3, not ${mediaStore}`);
  const lines = fs.readFileSync(TEMPLATE, 'utf8').split('\n');
  const kept = [];
  let inLocal = false;
  for (const line of lines) {
    const marker = line.trim();
    if (marker === '# [local-media]') inLocal = true;
    else if (marker === '# [/local-media]') inLocal = false;
    else if (!(inLocal && mediaStore === 's3')) kept.push(line);
  }
  let text = kept.join('\n');
  if (mediaStore === 'local') return text.replace(/^\{\{S3_(HTTP|SERVER)\}\}\n/gm, '');
  const [httpPart, serverPart] = fs
    .readFileSync(S3_SNIPPET, 'utf8')
    .split('# --- server { } ---')
    .map((part) => part.replace(/^(#[^\n]*\n)*# --- http \{ \} ---\n/, '').trimEnd());
  text = text.replace('{{S3_HTTP}}', httpPart).replace('{{S3_SERVER}}', serverPart.replace(/^(?=.)/gm, '    '));
  // The left-out parts leave runs of blank lines behind.
  return text.replace(/\n{3,}/g, '\n\n');
}

/** @param {Partial<typeof DEFAULTS>} opts */
export function renderNginxConf(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const values = {
    UPSTREAM_SERVERS: o.upstreams.map((u) => `    server ${u} max_fails=1 fail_timeout=5s;`).join('\n'),
    LISTEN: o.listen,
    SERVER_NAME: o.serverName,
    MEDIA_ROOT: o.mediaRoot.replace(/\/+$/, ''),
    MEDIA_PREFIX: o.mediaPrefix,
    MAX_BODY: o.maxBody,
    CACHE_DIR: o.cacheDir,
    RESOLVER: o.resolver,
  };
  return templateFor(o.mediaStore).replace(/\{\{(\w+)\}\}/g, (m, k) => {
    if (!(k in values)) throw new Error(`unknown placeholder ${m}`);
    return values[k];
  });
}

export const RTMP_TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'nginx-rtmp.conf.template');

export const RTMP_DEFAULTS = {
  /** Where OBS publishes (the public RTMP port). */
  listen: '1935',
  /** One API process, for the publish check (`on_publish`). */
  publishUrl: 'http://127.0.0.1:8081',
  /** Where an accepted publish is relayed: the API's LIVE_RTMP_HOST:LIVE_RTMP_PORT. */
  ingest: '127.0.0.1:1936',
  /** LIVE_PUBLISH_SECRET: the shipped file names the variable; the operator puts its value in. */
  publishSecret: 'REPLACE-WITH-LIVE_PUBLISH_SECRET',
};

/**
 * deploy/nginx-rtmp.conf.template rendered: the `rtmp { }` block of Debian's nginx-rtmp in front of
 * the API's embedded ingest (deploy/nginx-rtmp.conf is it with the defaults).
 * @param {Partial<typeof RTMP_DEFAULTS>} opts
 */
export function renderRtmpConf(opts = {}) {
  const o = { ...RTMP_DEFAULTS, ...opts };
  if (!/^[A-Za-z0-9_-]+$/.test(o.publishSecret))
    throw new Error('publishSecret: letters, digits, _ and - only (it goes in a URL unescaped)');
  const values = {
    RTMP_LISTEN: o.listen,
    PUBLISH_URL: o.publishUrl.replace(/\/+$/, ''),
    PUBLISH_SECRET: o.publishSecret,
    INGEST: o.ingest,
    INGEST_PORT: o.ingest.slice(o.ingest.lastIndexOf(':') + 1),
  };
  return fs.readFileSync(RTMP_TEMPLATE, 'utf8').replace(/\{\{(\w+)\}\}/g, (m, k) => {
    if (!(k in values)) throw new Error(`unknown placeholder ${m}`);
    return values[k];
  });
}

/**
 * A whole nginx.conf around the site config for a non-root, non-daemon nginx under `prefix`
 * (`nginx -p prefix -c prefix/nginx.conf -e prefix/error.log`): pid, logs and temp files inside
 * it, and with `rtmp` (renderRtmpConf's block) Debian's RTMP module loaded and that block at the top
 * level. Used by the tested deployments and the bench, not by an installed nginx.
 * @param {string} prefix
 * @param {string} site
 * @param {string} [rtmp]
 */
export function standaloneNginxConf(prefix, site, rtmp = '') {
  const p = prefix.replace(/\/+$/, '');
  return `${rtmp ? 'load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;\n' : ''}daemon off;
worker_processes auto;
pid ${p}/nginx.pid;
error_log ${p}/error.log warn;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    log_format members '$remote_addr "$request" $status $body_bytes_sent up=$upstream_addr cache=$upstream_cache_status t=$request_time';
    access_log ${p}/access.log members;
    client_body_temp_path ${p}/tmp/body;
    proxy_temp_path ${p}/tmp/proxy;
    fastcgi_temp_path ${p}/tmp/fastcgi;
    uwsgi_temp_path ${p}/tmp/uwsgi;
    scgi_temp_path ${p}/tmp/scgi;
    keepalive_requests 100000;
${site}
}
${rtmp}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--rtmp') {
    /** @type {Partial<typeof RTMP_DEFAULTS>} */
    const rtmp = {};
    for (let i = 1; i < args.length; i += 2) {
      const [flag, value] = [args[i], args[i + 1]];
      if (value === undefined) throw new Error(`${flag} needs a value`);
      if (flag === '--listen') rtmp.listen = value;
      else if (flag === '--publish-url') rtmp.publishUrl = value;
      else if (flag === '--ingest') rtmp.ingest = value;
      else if (flag === '--publish-secret') rtmp.publishSecret = value;
      else throw new Error(`unknown option ${flag}`);
    }
    process.stdout.write(renderRtmpConf(rtmp));
    process.exit(0);
  }
  /** @type {Partial<typeof DEFAULTS>} */
  const opts = {};
  const upstreams = [];
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--upstream') upstreams.push(value);
    else if (flag === '--listen') opts.listen = value;
    else if (flag === '--server-name') opts.serverName = value;
    else if (flag === '--media-root') opts.mediaRoot = value;
    else if (flag === '--media-prefix') opts.mediaPrefix = value;
    else if (flag === '--max-body') opts.maxBody = value;
    else if (flag === '--cache-dir') opts.cacheDir = value;
    else if (flag === '--media-store') opts.mediaStore = value;
    else if (flag === '--resolver') opts.resolver = value;
    else throw new Error(`unknown option ${flag}`);
  }
  if (upstreams.length) opts.upstreams = upstreams;
  process.stdout.write(renderNginxConf(opts));
}
