// Bundles the API (server and CLI) with esbuild: our code, the workspace packages (@members/ui's
// pure helpers) and the npm packages that bundle cleanly, so a process reads a few files instead of
// resolving and loading some 480 modules of node_modules at each start. A start of the server went
// from about 1.5 to 0.8 s of CPU on the 2-core CI machine, where the suites start several hundred API
// processes (docs/contributing.md, "The API in the suites").
//
// Code splitting keeps what a module loads with `await import()` out of the entry files
// (dist/chunks/): the S3 store with the AWS SDK, tus's S3 store and the KurrentDB event store are
// loaded only by a process that uses them. Without splitting esbuild hoists a lazily loaded
// module's imports to the top of the bundle, and every process would load them at start.
import fs from 'node:fs';
import { build } from 'esbuild';

/**
 * npm packages left in node_modules, loaded from there at run time: they cannot be bundled as
 * code alone. Every other dependency is bundled.
 */
const EXTERNAL = [
  // Native addons.
  'better-sqlite3',
  '@node-rs/argon2',
  // A native part too; only for kurrentdb:// stores (eventstore/storeUrl.ts loads it on demand).
  '@kurrent/kurrentdb-client',
  // Read their own files beside their code at run time.
  'geoip-lite', // its database
  'swagger-ui-dist', // the docs page's assets
  '@ffmpeg-installer/ffmpeg', // the paths of the binaries they ship
  '@ffprobe-installer/ffprobe',
  'fluent-ffmpeg', // its presets folder
  // A terminal's log format only (logging/logger.ts requires it then).
  'pino-pretty',
  // Optional peer dependencies of bundled packages (pg, ws), not installed: they try them and go on.
  'pg-native',
  'bufferutil',
  'utf-8-validate',
];

fs.rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/wiring/main.ts', cli: 'src/cli/main.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: [...EXTERNAL, ...EXTERNAL.map((d) => `${d}/*`)],
  // Bundled CommonJS packages call require() for Node's own modules.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
console.log('api: built dist/main.js and dist/cli.js');
