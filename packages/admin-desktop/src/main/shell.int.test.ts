/**
 * What can be checked of the Electron shell without the Electron binary: the bundles esbuild makes
 * (the preload requires nothing but `electron`; the window keeps the security checklist), and the
 * renderer file server (strict CSP on every answer, no path traversal).
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/fixtures.js';
import { packageDir } from '../../test/renderer.js';
import { isExplorerUrl } from './externalLinks.js';
import { CONTENT_SECURITY_POLICY, readRendererFile } from './rendererFiles.js';

const dir = tmpDir('desktop-shell-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function bundle(entry: string) {
  const result = await build({
    entryPoints: [path.join(packageDir, entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    external: ['electron', 'fluent-ffmpeg', '@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe'],
    define: { 'import.meta.url': 'importMetaUrl' },
    logLevel: 'silent',
  });
  const imports = Object.values(result.metafile.inputs).flatMap((i) => i.imports.filter((x) => x.external).map((x) => x.path));
  return { text: result.outputFiles[0]?.text ?? '', externals: [...new Set(imports)].sort() };
}

describe('Electron shell (static checks)', () => {
  it('the preload requires only electron and exposes one API', async () => {
    const preload = await bundle('src/main/preload.ts');
    expect(preload.externals).toEqual(['electron']);
    expect(preload.text).toContain('exposeInMainWorld("desktop"');
    expect(preload.text).not.toMatch(/require\("(node:)?(fs|child_process|path)"\)/);
  });

  it('the main window keeps contextIsolation, no nodeIntegration, sandbox; navigation and windows are guarded', async () => {
    const main = await bundle('src/main/main.ts');
    for (const line of [
      'contextIsolation: true',
      'nodeIntegration: false',
      'sandbox: true',
      'webviewTag: false',
      'will-navigate',
      'setWindowOpenHandler',
      'setPermissionRequestHandler',
    ])
      expect(main.text).toContain(line);
    expect(main.externals).toEqual(expect.arrayContaining(['electron']));
  });

  it('serves renderer files with the strict CSP and refuses paths outside the folder', async () => {
    const root = path.join(dir, 'renderer');
    fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(root, 'index.html'), '<html><head></head></html>');
    fs.writeFileSync(path.join(root, 'assets', 'a.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    const index = await readRendererFile(root, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    expect((await readRendererFile(root, '/assets/a.js')).headers['content-type']).toMatch(/javascript/);
    expect((await readRendererFile(root, '/../secret.txt')).status).toBe(404);
    expect((await readRendererFile(root, '/%2e%2e/secret.txt')).status).toBe(404);
  });

  it('opens only https block-explorer links outside the app', () => {
    expect(isExplorerUrl('https://mempool.space/tx/ab12')).toBe(true);
    expect(isExplorerUrl('https://blockstream.info/tx/ab12')).toBe(true);
    expect(isExplorerUrl('http://mempool.space/tx/ab12')).toBe(false);
    expect(isExplorerUrl('https://mempool.space.evil.example/tx')).toBe(false);
    expect(isExplorerUrl('https://user@mempool.space/tx')).toBe(false);
    expect(isExplorerUrl('file:///etc/passwd')).toBe(false);
  });
});
