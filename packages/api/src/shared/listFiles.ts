/** Listing a folder's files, for what publishes or uploads a ladder and for the local store's listing. */
import fsp from 'node:fs/promises';
import path from 'node:path';

/** Every file under `dir`, each as its path below `dir` behind `prefix` (`360p/seg_00000.ts`). Throws when `dir` cannot be read. */
export async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await listFiles(path.join(dir, e.name), `${prefix}${e.name}/`)));
    else out.push(`${prefix}${e.name}`);
  }
  return out;
}
