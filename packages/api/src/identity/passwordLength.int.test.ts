/**
 * ASVS 2.1.2 (passwords of 64 characters are allowed; the product's own bound: up to 256 accepted,
 * longer refused) and 2.1.1's minimum of 8 at the edges, on the production configuration and both
 * stores, wherever a password is set: registration, the password change and the reset (its token
 * read from the mailed link). A character is a Unicode code point (NIST SP 800-63B §5.1.1.2), so an
 * emoji counts once: 7 emoji are too short, 256 emoji are accepted. Each accepted password then
 * signs in, and the same password one character shorter does not (nothing is cut off, 2.1.3).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, forEachStore, startTestServer, type TestServer } from '../../test/harness.js';
import { mailsTo } from '../mail/outbox.testkit.js';
import { login, registerMember, registrationPayload } from './identity.testkit.js';

const MIN = 8;
const MAX = 256;
const TOO_SHORT = 'Password must be at least 8 characters long';
const TOO_LONG = `must be at most ${MAX} characters`;

/** The product's answer to a body whose `field` breaks its schema: the field named in the message and in `details`. */
const schemaRefusal = (field: string, message: string) => ({
  success: false,
  error: `${field}: ${message}`,
  code: 'validation.invalid_body',
  details: [{ path: field, message }],
});

let made = 0;
/** A password of `length` code points, distinct from every other one made: ASCII, or emoji of 2 UTF-16 units and 4 UTF-8 bytes each. */
function password(length: number, kind: 'ascii' | 'emoji'): string {
  made += 1;
  if (kind === 'emoji') return String.fromCodePoint(0x1f600 + made).repeat(length);
  const tag = `p${made}-`;
  return `${tag}${'x'.repeat(length - tag.length)}`;
}

/** The edges: below the minimum, the minimum, ASVS's 64, the maximum, one over it; as ASCII and as emoji. */
function edges(kind: 'ascii' | 'emoji') {
  return [
    { length: MIN - 1, accepted: false },
    { length: MIN, accepted: true },
    { length: 64, accepted: true },
    { length: MAX, accepted: true },
    { length: MAX + 1, accepted: false },
  ].map((e) => ({
    ...e,
    kind,
    password: password(e.length, kind),
    name: `${e.length} ${kind === 'ascii' ? 'ASCII characters' : 'emoji'}`,
  }));
}
const EDGES = [...edges('ascii'), ...edges('emoji')];

/** `p` without its last code point (an emoji is not split in two). */
const oneShorter = (p: string) => Array.from(p).slice(0, -1).join('');

forEachStore('password length at the edges (production)', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: {
        NODE_ENV: 'production',
        MAIL_TRANSPORT: 'outbox',
        // One client address, one mailbox: the per-address and per-recipient limits are not what is tested here.
        AUTH_REQUESTS_PER_IP_PER_MINUTE: '10000',
        MAILS_PER_RECIPIENT_PER_HOUR: '1000',
      },
    });
    api = apiClient(server.url);
  });
  afterAll(async () => server?.close());

  /** An accepted password signs in; the same one a character shorter does not. */
  async function signsInWithExactly(email: string, pw: string) {
    expect((await api.post('/auth/login', { email, password: pw })).status).toBe(200);
    expect((await api.post('/auth/login', { email, password: oneShorter(pw) })).status).toBe(401);
  }

  it('registration: under 8 refused with the spec message, 8, 64 and 256 accepted, 257 refused; emoji count once', async () => {
    for (const edge of EDGES) {
      const payload = registrationPayload({ password: edge.password });
      const r = await api.post('/auth/register', payload);
      if (edge.accepted) {
        expect({ status: r.status, error: r.body.error }, edge.name).toEqual({ status: 201, error: undefined });
        await signsInWithExactly(payload.email, edge.password);
      } else {
        expect({ status: r.status, body: r.body }, edge.name).toEqual({
          status: 400,
          // Too short is the spec's rule, checked after the shape (spec §5 order); too long is the shape's bound.
          body:
            edge.length < MIN
              ? { success: false, error: TOO_SHORT, code: 'validation.invalid_input' }
              : schemaRefusal('password', TOO_LONG),
        });
      }
    }
  });

  it('password change: the same edges for the new password; the current one may be as long as any accepted password', async () => {
    const m = await registerMember(api);
    let current = m.password;
    const { token } = await login(api, m.email, current);
    for (const edge of EDGES) {
      const r = await api.post('/users/me/password', { currentPassword: current, newPassword: edge.password }, token);
      if (edge.accepted) {
        expect({ status: r.status, error: r.body.error }, edge.name).toEqual({ status: 200, error: undefined });
        current = edge.password;
        await signsInWithExactly(m.email, current);
      } else {
        expect({ status: r.status, body: r.body }, edge.name).toEqual({
          status: 400,
          body: schemaRefusal('newPassword', edge.length < MIN ? TOO_SHORT : TOO_LONG),
        });
      }
    }
  });

  it('password reset: the same edges through the mailed link; a refused password leaves the link usable', async () => {
    const m = await registerMember(api);
    /** The token of the newest reset link mailed to the member. */
    const mailedToken = async () => {
      const mail = (await mailsTo(server, m.email)).filter((r) => r.key.startsWith('password-reset:')).at(-1);
      const link = /\/auth\/forgot-password\?token=(\S+)/.exec(mail?.text_body ?? '');
      if (!link) throw new Error('no reset link mailed');
      return decodeURIComponent(link[1] as string);
    };
    expect((await api.post('/auth/reset-password', { email: m.email })).status).toBe(200);
    let token = await mailedToken();
    for (const edge of EDGES) {
      const r = await api.post('/auth/reset-password/confirm', { token, password: edge.password });
      if (edge.accepted) {
        expect({ status: r.status, error: r.body.error }, edge.name).toEqual({ status: 200, error: undefined });
        await signsInWithExactly(m.email, edge.password);
        // The link worked once: the next edge needs a new one (a second later, so it is the newest mail).
        server.clock.advance(1000);
        expect((await api.post('/auth/reset-password', { email: m.email })).status).toBe(200);
        token = await mailedToken();
      } else {
        expect({ status: r.status, body: r.body }, edge.name).toEqual({
          status: 400,
          body: schemaRefusal('password', edge.length < MIN ? TOO_SHORT : TOO_LONG),
        });
      }
    }
  });
});
