// Bundles the Electron main process and the preload (CommonJS, as Electron loads them) and the dev
// bridge CLI. The renderer is built by `vite build` (vite.config.ts).
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'info' };

await build({
  ...common,
  entryPoints: { main: 'src/main/main.ts', preload: 'src/main/preload.ts' },
  outdir: 'dist/main',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // Shipped as files (their binaries must stay outside the asar) or provided by Electron.
  external: ['electron', 'fluent-ffmpeg', '@ffmpeg-installer/ffmpeg', '@ffprobe-installer/ffprobe'],
  // import.meta.url (used by media.ts to find the installer packages) in CommonJS.
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: "const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});

await build({
  ...common,
  entryPoints: { cli: 'src/bridge/cli.ts' },
  outdir: 'dist/bridge',
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  packages: 'external',
});
