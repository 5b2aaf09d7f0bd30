/**
 * Finds an Electron binary without triggering the `electron` package's download (its index.js
 * downloads when the binary is missing): ELECTRON_PATH, else the binary an ordinary install put in
 * node_modules/electron/dist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageDir } from './renderer.js';

export function findElectron(): { path?: string; reason: string } {
  const fromEnv = process.env.ELECTRON_PATH;
  if (fromEnv)
    return fs.existsSync(fromEnv) ? { path: fromEnv, reason: 'ELECTRON_PATH' } : { reason: `ELECTRON_PATH=${fromEnv} does not exist` };
  const pkg = path.join(packageDir, 'node_modules', 'electron');
  const pathTxt = path.join(pkg, 'path.txt');
  if (!fs.existsSync(pathTxt))
    return {
      reason: 'no Electron binary: node_modules/electron was installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1 and ELECTRON_PATH is not set',
    };
  const bin = path.join(pkg, 'dist', fs.readFileSync(pathTxt, 'utf8').trim());
  return fs.existsSync(bin) ? { path: bin, reason: 'installed' } : { reason: `no Electron binary at ${bin}` };
}
