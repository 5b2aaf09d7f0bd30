/**
 * The tus 1.0 protocol's own statuses (https://tus.io/protocols/resumable-upload), checked against
 * the text rather than against what @tus/server happens to answer:
 * - "If the Client requests a version which the Server does not support, the Server MUST respond
 *   with the 412 Precondition Failed status and MUST include the Tus-Version header";
 * - "All PATCH requests MUST use Content-Type: application/offset+octet-stream, otherwise the
 *   server SHOULD return a 415 Unsupported Media Type status";
 * - "The Tus-Resumable header MUST be included in every request and response except for OPTIONS
 *   requests": our own refusals (401, 403 before tus sees the request) included.
 * With the real tus-js-client where a client sees the answer. Access comes first (a visitor gets
 * 401 whatever the headers), so the protocol checks run for admins.
 */
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../test/adminToken.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { createTestUser } from '../streaming/viewers.testkit.js';

const meta = `filename ${Buffer.from('clip.mp4').toString('base64')},title ${Buffer.from('Protocol clip').toString('base64')}`;

describe('tus 1.0 statuses', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  const url = (p = '') => `${server.url}/api/admin/uploads${p}`;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    admin = await adminToken(server);
    member = (await createTestUser(server.ctx, { approved: true })).token;
  }, 60_000);
  afterAll(() => server?.close());

  async function create(): Promise<string> {
    const res = await fetch(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'tus-resumable': '1.0.0', 'upload-length': '100', 'upload-metadata': meta },
    });
    expect(res.status).toBe(201);
    return new URL(res.headers.get('location') ?? '', server.url).pathname;
  }

  it('an unsupported Tus-Resumable is 412 with Tus-Version, on every tus method', async () => {
    const at = await create();
    for (const method of ['POST', 'PATCH', 'HEAD', 'DELETE'] as const) {
      for (const version of ['0.2.2', '2.0.0', undefined]) {
        const headers: Record<string, string> = { authorization: `Bearer ${admin}`, 'upload-length': '100', 'upload-metadata': meta };
        if (version) headers['tus-resumable'] = version;
        if (method === 'PATCH') Object.assign(headers, { 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' });
        const res = await fetch(method === 'POST' ? url() : `${server.url}${at}`, {
          method,
          headers,
          body: method === 'PATCH' ? 'x' : undefined,
        });
        const what = `${method} with Tus-Resumable ${version ?? '(none)'}`;
        expect(res.status, what).toBe(412);
        expect(res.headers.get('tus-version'), what).toBe('1.0.0');
        expect(res.headers.get('tus-resumable'), what).toBe('1.0.0');
        if (method !== 'HEAD') expect(await res.json(), what).toMatchObject({ success: false, error: expect.stringContaining('1.0.0') });
      }
    }
    // Nothing was processed: the upload is still there, at offset 0.
    const head = await fetch(`${server.url}${at}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${admin}`, 'tus-resumable': '1.0.0' },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('0');
  });

  it('a PATCH with another Content-Type is 415, and nothing is written', async () => {
    const at = await create();
    for (const type of [
      'application/json',
      'text/plain',
      'application/octet-stream',
      'application/offset+octet-stream; charset=x',
      undefined,
    ]) {
      const headers: Record<string, string> = { authorization: `Bearer ${admin}`, 'tus-resumable': '1.0.0', 'upload-offset': '0' };
      const res = await fetch(`${server.url}${at}`, {
        method: 'PATCH',
        headers: type ? { ...headers, 'content-type': type } : headers,
        body: type ? 'some bytes' : new Uint8Array([1, 2, 3]),
      });
      expect(res.status, String(type)).toBe(415);
      expect(res.headers.get('tus-resumable')).toBe('1.0.0');
      expect(await res.json()).toMatchObject({ success: false, error: expect.stringContaining('application/offset+octet-stream') });
    }
    const head = await fetch(`${server.url}${at}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${admin}`, 'tus-resumable': '1.0.0' },
    });
    expect(head.headers.get('upload-offset')).toBe('0');
  });

  it('refusals of our access layer carry Tus-Resumable; OPTIONS needs no Tus-Resumable', async () => {
    const at = await create();
    for (const [token, status] of [
      [undefined, 401],
      [member, 403],
    ] as const) {
      for (const [method, target] of [
        ['POST', url()],
        ['PATCH', `${server.url}${at}`],
        ['HEAD', `${server.url}${at}`],
        ['DELETE', `${server.url}${at}`],
      ] as const) {
        const res = await fetch(target, {
          method,
          headers: { 'tus-resumable': '1.0.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        });
        expect(res.status, `${method} ${status}`).toBe(status);
        expect(res.headers.get('tus-resumable'), `${method} ${status}`).toBe('1.0.0');
      }
    }
    const discovery = await fetch(url(), { method: 'OPTIONS' });
    expect(discovery.status).toBe(204);
    expect(discovery.headers.get('tus-version')).toBe('1.0.0');
  });

  it('tus-js-client: a member is refused with 403, and the answer speaks tus', async () => {
    const error = await new Promise<tus.DetailedError>((resolve, reject) => {
      new tus.Upload(Buffer.from('not sent'), {
        endpoint: url(),
        metadata: { filename: 'clip.mp4', title: 'Refused' },
        headers: { Authorization: `Bearer ${member}` },
        storeFingerprintForResuming: false,
        retryDelays: null,
        onSuccess: () => reject(new Error('a member uploaded')),
        onError: (err) => resolve(err as tus.DetailedError),
      }).start();
    });
    expect(error.originalResponse?.getStatus()).toBe(403);
    expect(error.originalResponse?.getHeader('Tus-Resumable')).toBe('1.0.0');
  });
});
