/**
 * The start-up sweep of media/incoming on a real directory: what this host's dead processes (or a
 * previous run with our pid) staged goes, with the files of a video they moved in but never
 * recorded; a live process's uploads and a recorded video stay; foreign files go only once stale.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/harness.js';
import { localMediaStorage } from './localStore.js';
import { type MediaStorage, sweepStaging } from './storage.js';

let dataDir: string;
let storage: MediaStorage;

beforeEach(() => {
  dataDir = tmpDir('members-sweep-');
  storage = localMediaStorage(dataDir);
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const incoming = () => fs.readdirSync(path.join(dataDir, 'media', 'incoming')).sort();

/** A staged file as process `pid` of this host would have named it. */
async function stagedBy(pid: number, suffix: string): Promise<string> {
  const ours = await storage.stagingPath(suffix);
  const file = path.join(path.dirname(ours), path.basename(ours).replace(`.${process.pid}.`, `.${pid}.`));
  fs.writeFileSync(file, 'x');
  return path.basename(file);
}

function videoFolder(id: string): string {
  const dir = path.join(dataDir, 'media', 'videos', id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'video.mp4'), 'v');
  return dir;
}

describe('sweepStaging', () => {
  it('removes what dead or previous processes of this host staged, and the videos they never recorded', async () => {
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const livePid = process.ppid;
    await stagedBy(deadPid, '.part');
    await stagedBy(process.pid, '.img');
    const alive = await stagedBy(livePid, '.part');
    await stagedBy(deadPid, '.unrecorded-video.ingest');
    await stagedBy(deadPid, '.recorded-video.ingest');
    const unrecorded = videoFolder('unrecorded-video');
    const recorded = videoFolder('recorded-video');
    const foreignFresh = path.join(dataDir, 'media', 'incoming', 'upload-from-elsewhere.part');
    const foreignOld = path.join(dataDir, 'media', 'incoming', 'old-from-elsewhere.part');
    fs.writeFileSync(foreignFresh, 'x');
    fs.writeFileSync(foreignOld, 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    fs.utimesSync(foreignOld, twoDaysAgo, twoDaysAgo);

    const removed = await sweepStaging(storage, dataDir, async (id) => id === 'recorded-video');

    expect(removed).toBe(5);
    expect(incoming()).toEqual([alive, 'upload-from-elsewhere.part'].sort());
    expect(fs.existsSync(unrecorded)).toBe(false);
    expect(fs.existsSync(recorded)).toBe(true);
  });

  it('does nothing when nothing was ever staged', async () => {
    expect(await sweepStaging(storage, dataDir, async () => false)).toBe(0);
  });
});
