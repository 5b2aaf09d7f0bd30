/**
 * A local media folder as one side of a copy: `DATA_DIR/media/videos/…`. A file is written under a
 * scratch name in `DATA_DIR/media/incoming` (the same disk; a crashed copy's leftovers there are
 * swept by the server's next start, like an interrupted upload's), fsynced, hashed and only then
 * renamed into place, so an interrupted copy never leaves a partial file under its real name.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { scratchPath } from '../localStore.js';
import { isValidKey } from '../storage.js';
import { type CopyEndpoint, CopyMismatchError, type ListedObject, sha256OfFile } from './endpoint.js';

async function walk(dir: string, prefix: string, out: ListedObject[]): Promise<void> {
  for (const e of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) await walk(file, `${prefix}${e.name}/`, out);
    else if (e.isFile() && isValidKey(`${prefix}${e.name}`)) out.push({ key: `${prefix}${e.name}`, size: (await fsp.stat(file)).size });
  }
}

export function localEndpoint(dataDir: string): CopyEndpoint {
  const root = path.resolve(dataDir, 'media');
  const fileOf = (key: string) => {
    if (!isValidKey(key)) throw new Error(`Invalid media key: ${key}`);
    return path.join(root, key);
  };
  return {
    label: root,
    async check() {
      await fsp.mkdir(path.join(root, 'incoming'), { recursive: true });
      await fsp.access(root, fs.constants.W_OK);
    },
    async list() {
      const out: ListedObject[] = [];
      await walk(path.join(root, 'videos'), 'videos/', out);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async digest(key, expectSize) {
      const st = await fsp.stat(fileOf(key)).catch(() => null);
      if (!st?.isFile()) return null;
      if (st.size !== expectSize) return { size: st.size, sha256: null };
      return { size: st.size, sha256: (await sha256OfFile(fileOf(key))).sha256 };
    },
    read: async (key) => fs.createReadStream(fileOf(key), { highWaterMark: 1024 * 1024 }),
    localPath: fileOf,
    async write(key, file, size, sha256) {
      const target = fileOf(key);
      const temp = await scratchPath(dataDir, '.copy');
      try {
        await fsp.copyFile(file, temp);
        const fh = await fsp.open(temp, 'r+');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
        const back = await sha256OfFile(temp);
        if (back.size !== size || back.sha256 !== sha256)
          throw new CopyMismatchError(
            key,
            `read back ${back.size} bytes with SHA-256 ${back.sha256}, expected ${size} bytes with ${sha256}`,
          );
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await fsp.rename(temp, target);
      } finally {
        await fsp.rm(temp, { force: true });
      }
    },
    scratchFile: () => scratchPath(dataDir, '.copy'),
  };
}
