import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captionLanguageOf, listFolder, parseImportArgs, readSidecar, sidecarsOf, titleFromFileName } from './videosImport.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'members-import-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('videos import', () => {
  it('titles come from file names', () => {
    expect(titleFromFileName('my_clip-01.mp4')).toBe('My clip 01');
    expect(titleFromFileName('sub/Beach.Day__2.mkv')).toBe('Beach Day 2');
    expect(titleFromFileName('___.mp4')).toBe('___');
    expect(titleFromFileName(`${'a'.repeat(300)}.mp4`)).toHaveLength(200);
  });

  it('arguments: one folder, boolean flags that never take the folder, known options only', () => {
    expect(parseImportArgs(['--publish', 'clips'])).toEqual({ dir: 'clips', publish: true, recursive: false });
    expect(parseImportArgs(['clips', '--access=vip', '--as', 'a@b.c', '--recursive'])).toEqual({
      dir: 'clips',
      access: 'vip',
      as: 'a@b.c',
      publish: false,
      recursive: true,
    });
    for (const bad of [[], ['a', 'b'], ['a', '--access', 'gold'], ['a', '--access'], ['a', '--publish=yes'], ['a', '--force']])
      expect(() => parseImportArgs(bad)).toThrow();
  });

  it('--publish-at: an ISO date-time with an offset, kept in UTC; a date alone or no offset is a usage error naming it', () => {
    expect(parseImportArgs(['clips', '--publish-at', '2026-12-03T09:00:00+01:00'])).toEqual({
      dir: 'clips',
      publish: false,
      recursive: false,
      publishAt: '2026-12-03T08:00:00.000Z',
    });
    for (const bad of ['2026-12-03', '2026-12-03T09:00:00', 'soon'])
      expect(() => parseImportArgs(['clips', `--publish-at=${bad}`])).toThrow(
        `--publish-at ${bad}: publishAt must be an ISO 8601 date-time`,
      );
  });

  it('a sidecar is checked: bad JSON, an unknown field or a wrong access level is that file’s error', async () => {
    const write = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    expect(await readSidecar(write('ok.json', '{"title":" T ","tags":["a"],"accessLevel":"free"}'))).toEqual({
      ok: true,
      value: { title: 'T', tags: ['a'], accessLevel: 'free' },
    });
    expect(await readSidecar(write('broken.json', '{"title":'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^broken\.json: /),
    });
    expect(await readSidecar(write('typo.json', '{"titel":"T"}'))).toMatchObject({ ok: false, error: expect.stringContaining('titel') });
    expect(await readSidecar(write('level.json', '{"accessLevel":"gold"}'))).toMatchObject({
      ok: false,
      error: expect.stringContaining('accessLevel'),
    });
    // Issue 40: behind-the-scenes and a scheduled release from the sidecar.
    expect(await readSidecar(write('bts.json', '{"exclusiveTo":"annual","publishAt":"2026-12-03T09:00:00Z"}'))).toEqual({
      ok: true,
      value: { exclusiveTo: 'annual', publishAt: '2026-12-03T09:00:00Z' },
    });
    for (const [name, text, field] of [
      ['exclusive.json', '{"exclusiveTo":"monthly"}', 'exclusiveTo'],
      ['when.json', '{"publishAt":"next week"}', 'publishAt'],
      ['empty.json', '{"publishAt":""}', 'publishAt'],
    ] as const)
      expect(await readSidecar(write(name, text))).toMatchObject({ ok: false, error: expect.stringContaining(field) });
  });

  it('a folder: video names in order, sidecars and captions belong to their video, the rest is listed as ignored', async () => {
    const root = fs.mkdtempSync(path.join(dir, 'folder-'));
    for (const f of ['b.mp4', 'a.MOV', 'a.json', 'a.en.vtt', 'b.srt', 'notes.txt', '.DS_Store', 'other.json', 'sub/c.webm']) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), 'x');
    }
    expect(await listFolder(root, false)).toEqual({ videos: ['a.MOV', 'b.mp4'], ignored: ['notes.txt', 'other.json'] });
    expect((await listFolder(root, true)).videos).toEqual(['a.MOV', 'b.mp4', path.join('sub', 'c.webm')]);
    expect(await sidecarsOf(root, 'a.MOV')).toEqual({ json: path.join(root, 'a.json'), captions: ['a.en.vtt'] });
    expect(await sidecarsOf(root, 'b.mp4')).toEqual({ json: null, captions: ['b.srt'] });
  });

  it("a caption sidecar's language is in its name, English when none", () => {
    expect(captionLanguageOf('clip.mp4', 'clip.vtt')).toBe('en');
    expect(captionLanguageOf('sub/clip.mp4', 'clip.en.vtt')).toBe('en');
    expect(captionLanguageOf('clip.mov', 'clip.pt-BR.srt')).toBe('pt-BR');
  });
});
