/**
 * Serves the built renderer (dist/renderer) for the `app://renderer/` scheme in Electron and for
 * the dev bridge's HTTP server: path-traversal safe, with the strict Content-Security-Policy.
 * The renderer never talks to the network itself (API calls go through the main process), so the
 * policy allows nothing but its own files, data: thumbnails and (for the bridge) its own origin.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // React style attributes and the charts' inline styles; no inline scripts anywhere.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export interface RendererFile {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

/** The file for a URL path (`/` and unknown routes without an extension get index.html). */
export async function readRendererFile(rootDir: string, urlPath: string, transformIndex?: (html: string) => string): Promise<RendererFile> {
  const root = path.resolve(rootDir);
  let rel = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  if (rel === '/' || !path.extname(rel)) rel = '/index.html';
  const file = path.resolve(root, `.${rel}`);
  const headers = { 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' };
  if (!file.startsWith(root + path.sep)) return { status: 404, body: Buffer.from('Not found'), headers };
  try {
    let body = await fsp.readFile(file);
    const ext = path.extname(file);
    if (ext === '.html' && transformIndex) body = Buffer.from(transformIndex(body.toString('utf8')));
    return { status: 200, body, headers: { ...headers, 'content-type': TYPES[ext] ?? 'application/octet-stream' } };
  } catch {
    return { status: 404, body: Buffer.from('Not found'), headers };
  }
}
