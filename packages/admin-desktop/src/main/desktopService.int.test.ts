/**
 * The main-process service behind IPC, against a real API server: every message is checked by zod
 * (bad ones are refused before anything runs), sessions are admin-only with the spec's Access
 * Denied text, the refresh token goes to the secret store and the server URL is remembered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, makeTextFile, makeVideo, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from '../../test/fixtures.js';
import { fileConfigStore, memorySecretStore } from './configStore.js';
import { createDesktopService, type DesktopService } from './desktopService.js';
import { createSession } from './session.js';

const dir = tmpDir('desktop-ipc-');
let server: TestServer;
let video: string;
let notes: string;
let chooseAnswer: string[] = [];
const opened: string[] = [];

function service(configDir = path.join(dir, 'config'), secrets = memorySecretStore()) {
  const session = createSession({ config: fileConfigStore(configDir), secrets });
  const svc = createDesktopService({
    session,
    chooseFiles: async () => chooseAnswer,
    openExternal: async (url) => {
      opened.push(url);
    },
    thumbnailDir: path.join(dir, 'thumbs'),
    queueOptions: { progressIntervalMs: 0 },
  });
  return { session, svc, secrets };
}

beforeAll(async () => {
  video = makeVideo(dir, 'clip.mp4', { seconds: 3 });
  notes = makeTextFile(dir, 'notes.mov');
  server = await startTestServer('sqlite');
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('IPC validation (zod, in the main process)', () => {
  let svc: DesktopService;
  beforeAll(() => {
    svc = service().svc;
  });

  it.each([
    ['unknown channel', 'fs:readFile', { path: '/etc/passwd' }, /Unknown channel/],
    ['extra field', 'session:get', { evil: true }, /Invalid session:get message/],
    ['not an URL', 'session:signIn', { serverUrl: 'javascript:alert(1)', email: 'a@b.c', password: 'x' }, /serverUrl/],
    ['bad email', 'session:signIn', { serverUrl: 'http://x', email: 'nope', password: 'x' }, /email/],
    ['path traversal', 'api:request', { method: 'GET', path: '/admin/../../etc' }, /path/],
    ['absolute URL', 'api:request', { method: 'GET', path: 'http://evil.example/x' }, /path/],
    ['session path', 'api:request', { method: 'POST', path: '/auth/login' }, /session/],
    ['bad method', 'api:request', { method: 'PATCH', path: '/admin/stats' }, /method/],
    ['paths not a list', 'files:expand', { paths: '/etc' }, /paths/],
    ['chat state with a field', 'chat:state', { after: 'x' }, /Invalid chat:state message/],
    ['a show id that is a path', 'showChat:follow', { showId: '../admin/x' }, /Invalid show id/],
    ['no show id', 'showChat:follow', {}, /showId/],
    ['NUL in a path', 'media:inspect', { path: 'a\0b' }, /NUL/],
    ['negative time', 'media:inspect', { path: '/x.mp4', thumbnailAtSeconds: -1 }, /thumbnailAtSeconds/],
    ['no title', 'uploads:add', { items: [{ id: 'r1', path: '/x.mp4', metadata: { title: '' } }] }, /title/],
    [
      'bad access level',
      'uploads:add',
      { items: [{ id: 'r1', path: '/x.mp4', metadata: { title: 't', accessLevel: 'gold' } }] },
      /accessLevel/,
    ],
    ['bad duration', 'uploads:add', { items: [{ id: 'r1', path: '/x.mp4', metadata: { title: 't', durationText: '5 min' } }] }, /mm:ss/],
    ['bad row id', 'uploads:control', { action: 'pause', id: '../../x' }, /id/],
    ['bad action', 'uploads:control', { action: 'delete-all', id: 'r1' }, /action/],
    ['not a string', 'shell:openExternal', { url: 42 }, /url/],
  ])('refuses %s', async (_name, channel, payload, error) => {
    const answer = await svc.invoke(channel, payload);
    expect(answer.ok).toBe(false);
    expect(answer.ok ? '' : answer.error).toMatch(error);
  });

  it('opens only block explorer links outside the app', async () => {
    expect((await svc.invoke('shell:openExternal', { url: 'https://evil.example/tx/1' })).ok).toBe(false);
    expect((await svc.invoke('shell:openExternal', { url: 'http://mempool.space/tx/1' })).ok).toBe(false);
    expect((await svc.invoke('shell:openExternal', { url: 'https://mempool.space/tx/abc' })).ok).toBe(true);
    expect(opened).toEqual(['https://mempool.space/tx/abc']);
  });

  it('probes and uploads only files the admin chose, and never sends a non-video', async () => {
    const notChosen = await svc.invoke('media:inspect', { path: video });
    expect(notChosen).toEqual({ ok: false, error: 'That file was not chosen in this window' });
    chooseAnswer = [video, notes];
    const chosen = await svc.invoke('files:choose', {});
    expect(chosen).toEqual({ ok: true, data: [video, notes] });
    const info = await svc.invoke('media:inspect', { path: video });
    expect(info.ok && (info.data as { isVideo: boolean; durationSeconds: number }).durationSeconds).toBeCloseTo(3, 0);
    expect(info.ok && (info.data as { thumbnailDataUrl: string }).thumbnailDataUrl).toMatch(/^data:image\/jpeg;base64,/);
    const flagged = await svc.invoke('media:inspect', { path: notes });
    expect(flagged.ok && (flagged.data as { isVideo: boolean }).isVideo).toBe(false);
    const refused = await svc.invoke('uploads:add', { items: [{ id: 'n1', path: notes, metadata: { title: 'Notes' } }] });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.error).toMatch(/not a video/);
    expect(((await svc.invoke('uploads:snapshot', {})) as { data?: unknown }).data).toMatchObject({ items: [] });
  });

  it('refuses API calls before sign-in', async () => {
    const answer = await svc.invoke('api:request', { method: 'GET', path: '/admin/stats' });
    expect(answer).toEqual({
      ok: true,
      data: { status: 401, body: { success: false, error: 'Please log in to continue', code: 'auth.required' } },
    });
  });
});

describe('session (admins only)', () => {
  it('signs an admin in, keeps the refresh token in the secret store, remembers the server, and restores', async () => {
    const configDir = path.join(dir, 'cfg-admin');
    const { svc, secrets } = service(configDir);
    const answer = await svc.invoke('session:signIn', {
      serverUrl: `${server.url}/`,
      email: TEST_ADMIN.email,
      password: TEST_ADMIN.password,
    });
    expect(answer).toMatchObject({ ok: true, data: { ok: true, user: { email: TEST_ADMIN.email, role: 'admin' } } });
    expect(secrets.get()).toMatch(/refresh_token/);
    expect(secrets.get()).not.toContain(TEST_ADMIN.password);
    expect(JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8'))).toEqual({ serverUrl: server.url });
    const health = await svc.invoke('api:request', { method: 'GET', path: '/health' });
    expect(health).toMatchObject({ ok: true, data: { status: 200 } });

    // A new process with the same stores signs in from the refresh token alone.
    const again = service(configDir, secrets);
    expect(await again.session.restore()).toBe(true);
    expect(((await again.svc.invoke('session:get', {})) as { data?: unknown }).data).toMatchObject({
      serverUrl: server.url,
      user: { role: 'admin' },
    });
    await again.svc.invoke('session:signOut', {});
    expect(secrets.get()).toBeUndefined();
  });

  it('previews a video on the signed-in server’s player page in the system browser, and only a video id', async () => {
    const { svc } = service(path.join(dir, 'cfg-preview'));
    const before = opened.length;
    expect(await svc.invoke('shell:previewVideo', { videoId: 'vid_1' })).toEqual({ ok: false, error: 'Sign in to a server first' });
    await svc.invoke('session:signIn', { serverUrl: server.url, email: TEST_ADMIN.email, password: TEST_ADMIN.password });
    expect((await svc.invoke('shell:previewVideo', { videoId: 'vid_1-A' })).ok).toBe(true);
    for (const videoId of ['../admin', 'a/b', 'x?y=1', ''])
      expect((await svc.invoke('shell:previewVideo', { videoId })).ok, videoId).toBe(false);
    expect(opened.slice(before)).toEqual([`${server.url}/videos/vid_1-A`]);
    await svc.invoke('session:signOut', {});
  });

  it("answers a member with 'Access Denied' / 'You don't have permission to access this page.'", async () => {
    const email = 'member@example.test';
    const reg = await apiClient(server.url).post('/auth/register', {
      email,
      password: 'member-password-1',
      firstName: 'Mem',
      lastName: 'Ber',
      dateOfBirth: '1990-01-01',
      agreeToTerms: true,
    });
    expect(reg.status).toBe(201);
    const { svc, secrets } = service(path.join(dir, 'cfg-member'));
    const answer = await svc.invoke('session:signIn', { serverUrl: server.url, email, password: 'member-password-1' });
    expect(answer).toEqual({
      ok: true,
      data: {
        ok: false,
        error: 'Access Denied',
        accessDenied: { title: 'Access Denied', message: "You don't have permission to access this page.", email, role: 'member' },
      },
    });
    expect(secrets.get()).toBeUndefined();
    expect(((await svc.invoke('session:get', {})) as { data?: unknown }).data).toMatchObject({ user: null });
  });

  it('shows the server error for wrong credentials', async () => {
    const { svc } = service(path.join(dir, 'cfg-wrong'));
    const answer = await svc.invoke('session:signIn', { serverUrl: server.url, email: TEST_ADMIN.email, password: 'wrong-password' });
    expect(answer).toEqual({ ok: true, data: { ok: false, error: 'Invalid email or password' } });
  });
});
