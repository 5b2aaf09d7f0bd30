/**
 * The reference UI at /api/docs: Swagger UI served from the `swagger-ui-dist` package on this
 * server (no CDN), started by a small script of ours (no inline script, so a strict CSP holds).
 * The page is a viewer with no data in it; the document it shows comes from /api/openapi.json,
 * fetched with an access token the page asks for with the browser's refresh cookie, as the web app
 * does after a reload (same origin; the web app keeps its token in memory only, issue 42).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const distDir = () => path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** This page's own policy: scripts and styles from this origin only, no inline script or style (a route's own CSP wins over the app-wide one). */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<p id="docs-status" role="status">Loading the API document…</p>
<div id="docs"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/**
 * Fetches the document (with an access token from the browser's session, when it has one: the
 * refresh cookie and the CSRF cookie's echo, POST /api/auth/refresh) and renders it.
 */
const INIT_JS = `(function () {
  var status = document.getElementById('docs-status');
  var token = null;
  var csrf = /(?:^|;\\s*)csrf_token=([^;]+)/.exec(document.cookie);
  var session = csrf
    ? fetch('auth/refresh', { method: 'POST', headers: { 'X-CSRF-Token': decodeURIComponent(csrf[1]) }, credentials: 'same-origin' })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (body) { return (body && body.data && body.data.token) || null; })
        .catch(function () { return null; })
    : Promise.resolve(null);
  session
    .then(function (t) {
      token = t;
      return fetch('openapi.json', { headers: token ? { Authorization: 'Bearer ' + token } : {}, credentials: 'same-origin' });
    })
    .then(function (res) {
      if (res.status === 401 || res.status === 403)
        throw new Error('The API document is for admins: sign in to the site as an admin in this browser, then reload this page.');
      if (!res.ok) throw new Error('Could not load the API document (' + res.status + ').');
      return res.json();
    })
    .then(function (spec) {
      // Every path, the runners' machine API included. Past 150 rows (tag headings plus each tag's
      // operations) Swagger UI 5.35 renders only the rows near the viewport and the rest as the page
      // scrolls (docs/api.md, "Reference UI").
      status.textContent = '';
      var ui = window.SwaggerUIBundle({ spec: spec, dom_id: '#docs', deepLinking: true, tryItOutEnabled: false });
      if (token) ui.preauthorizeApiKey('bearerAuth', token);
    })
    .catch(function (err) { status.textContent = err.message; });
})();
`;

export interface DocsAsset {
  body: string | Buffer;
  type: string;
}

const cache = new Map<string, DocsAsset>();

/** The page's scripts and styles by file name, or undefined for any other name. */
export function docsAsset(name: string): DocsAsset | undefined {
  if (name === 'init.js') return { body: INIT_JS, type: 'text/javascript; charset=utf-8' };
  const type = { 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8', 'swagger-ui.css': 'text/css; charset=utf-8' }[name];
  if (!type) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    asset = { body: fs.readFileSync(path.join(distDir(), name)), type };
    cache.set(name, asset);
  }
  return asset;
}
