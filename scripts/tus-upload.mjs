// `node scripts/tus-upload.mjs FILE --title TITLE [--access free|premium|vip] [--description TEXT]
//   [--tags a,b] [--categories a,b] [--model NAME] [--site URL]`: a resumable (tus) upload of one video
// from a shell, with the admin's access token in the TOKEN environment variable (not an argument, so
// it stays out of `ps`). Prints the new video's id on stdout, progress on stderr. Run from the
// repository root: tus-js-client is the one the web app and the desktop console use. An interrupted
// upload (Ctrl-C, a dropped connection) continues from where it stopped when the same command is run
// again: the upload's URL is kept in $TMPDIR/members-tus-uploads.json until it finishes.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(new URL('../packages/ui/package.json', import.meta.url));
const tus = require('tus-js-client');

const USAGE =
  'Usage: TOKEN=… node scripts/tus-upload.mjs FILE --title TITLE [--access free|premium|vip] [--description TEXT] [--tags a,b] [--categories a,b] [--model NAME] [--site URL]\n' +
  '  --site defaults to $SITE, else http://localhost:8080; TOKEN is an admin access token (POST /api/auth/login).';

function fail(message, code = 2) {
  console.error(`tus-upload: ${message}`);
  if (code === 2) console.error(USAGE);
  process.exit(code);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      title: { type: 'string' },
      access: { type: 'string' },
      description: { type: 'string' },
      tags: { type: 'string' },
      categories: { type: 'string' },
      model: { type: 'string' },
      site: { type: 'string' },
    },
  });
} catch (err) {
  fail(err.message);
}
const { values, positionals } = parsed;
if (positionals.length !== 1) fail('one FILE');
if (!values.title) fail('--title is required');
if (!process.env.TOKEN) fail('TOKEN is not set (an admin access token)');
const file = path.resolve(positionals[0]);
const stat = fs.statSync(file, { throwIfNoEntry: false });
if (!stat?.isFile()) fail(`${positionals[0]}: no such file`);
const site = (values.site ?? process.env.SITE ?? 'http://localhost:8080').replace(/\/+$/, '');

const metadata = { filename: path.basename(file), title: values.title };
if (values.access) metadata.accessLevel = values.access;
if (values.description) metadata.description = values.description;
if (values.tags) metadata.tags = values.tags;
if (values.categories) metadata.categories = values.categories;
if (values.model) metadata.model = values.model;

const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
let lastShown = 0;
const upload = new tus.Upload(fs.createReadStream(file), {
  endpoint: `${site}/api/admin/uploads`,
  headers: { Authorization: `Bearer ${process.env.TOKEN}` },
  metadata,
  uploadSize: stat.size,
  chunkSize: 8 * 1024 * 1024,
  retryDelays: [0, 1000, 3000, 5000, 10000],
  urlStorage: new tus.FileUrlStorage(path.join(os.tmpdir(), 'members-tus-uploads.json')),
  removeFingerprintOnSuccess: true,
  onProgress(sent, total) {
    const now = Date.now();
    if (now - lastShown < 1000 && sent < total) return;
    lastShown = now;
    process.stderr.write(`${path.basename(file)}: ${mib(sent)} of ${mib(total)} (${Math.floor((sent / total) * 100)}%)\n`);
  },
  onError(err) {
    // The server's envelope `{ success: false, error }` when there is one.
    const body = err.originalResponse?.getBody?.();
    let reason = err.message;
    try {
      reason = JSON.parse(body).error ?? reason;
    } catch {}
    fail(reason, 1);
  },
  onSuccess({ lastResponse }) {
    const videoId = lastResponse.getHeader('Upload-Video-Id');
    if (!videoId) fail('the upload finished but the server named no video (Upload-Video-Id)', 1);
    console.log(videoId);
  },
});

const previous = await upload.findPreviousUploads();
if (previous.length) {
  process.stderr.write(`${path.basename(file)}: resuming an earlier upload\n`);
  upload.resumeFromPreviousUpload(previous[0]);
}
upload.start();
