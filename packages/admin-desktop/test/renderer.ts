/** Builds the renderer once per test file into a temporary folder (independent of dist/). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildRenderer(outDir: string): Promise<string> {
  await build({
    configFile: path.join(packageDir, 'vite.config.ts'),
    root: path.join(packageDir, 'src/renderer'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  return outDir;
}

export { packageDir };
