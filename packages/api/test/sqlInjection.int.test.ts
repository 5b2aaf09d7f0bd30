/**
 * ASVS 5.3.4 (queries are parameterised) judged by the answer, not only by the absence of a 5xx: on
 * the production configuration and both stores, the searches a visitor and an admin can type into —
 * the catalog's `q` (titles, descriptions, tags) and exact filters (`model`, `tag`, `category`), and
 * the admin's member search — answer exactly what the literal text matches. A title that contains
 * `' OR 1=1--` is found by that text and only it; the same payload with no literal match finds
 * nothing; `%`, `_` and `\` are characters, not wildcards or escapes; a `DROP TABLE` leaves the tables.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ingestVideoFile } from '../src/catalog/ingest.js';
import { enrolSecondFactor, login, registerMember } from '../src/identity/identity.testkit.js';
import { makeMp4 } from '../src/media/media.testkit.js';
import { apiClient, forEachStore, startTestServer, TEST_ADMIN, type TestServer, tmpDir } from './harness.js';

const fixtures = tmpDir('sql-injection-');
afterAll(() => fs.rmSync(fixtures, { recursive: true, force: true }));

/** The catalog, each title chosen to hold (or not) the literal text of a payload. */
const VIDEOS = {
  orTrue: { title: "Rooftop ' OR 1=1-- cut", model: "' OR 1=1--" },
  plain: { title: 'Golden Hour', description: 'A quiet evening', tags: 'sunset' },
  wildcards: { title: 'Half price 50% off_season \\ edition' },
  drop: { title: "Robert'); DROP TABLE videos;--" },
  quotes: { title: 'Say "hi" OR ""="' },
  taggedUnion: { title: 'Night', tags: "1' UNION SELECT email FROM users--", categories: "Solo' OR 'a'='a" },
} as const;

/** Search text → the videos whose title, description or tag holds it literally (any case). */
const CATALOG_SEARCHES: [string, (keyof typeof VIDEOS)[]][] = [
  ["' OR 1=1--", ['orTrue']],
  ["' or 1=1--", ['orTrue']],
  ["' OR '1'='1", []],
  ["' OR 1=1 --", []],
  ['1=1', ['orTrue']],
  ["'); DROP TABLE videos;--", ['drop']],
  ['" OR ""="', ['quotes']],
  ["1' UNION SELECT email FROM users--", ['taggedUnion']],
  ["' UNION SELECT id, email, password_hash FROM users--", []],
  ['%', ['wildcards']],
  ['_', ['wildcards']],
  ['\\', ['wildcards']],
  ['%_%', []],
  ['\\%', []],
  ["'", ['orTrue', 'drop', 'taggedUnion']],
  ['--', ['orTrue', 'drop', 'taggedUnion']],
  ['; SELECT pg_sleep(5);--', []],
  ['$1', []],
  ['golden', ['plain']],
];

forEachStore('searches answer what the literal text matches (production)', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof apiClient>;
  let admin: string;
  const ids: Record<string, string> = {};
  const titleOf = (id: string) => Object.entries(ids).find(([, v]) => v === id)?.[0];
  const members: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer(kind, {
      env: { NODE_ENV: 'production', MAIL_TRANSPORT: 'outbox', AUTH_REQUESTS_PER_IP_PER_MINUTE: '1000' },
    });
    api = apiClient(server.url);
    const signedIn = await login(api, TEST_ADMIN.email, TEST_ADMIN.password);
    admin = signedIn.token;
    await enrolSecondFactor(api, server.clock, admin);
    const clip = await makeMp4(fixtures, 2);
    const adminId = signedIn.user.id as string;
    for (const [key, video] of Object.entries(VIDEOS)) {
      // ingestVideoFile moves its input: each video gets a copy.
      const copy = path.join(fixtures, `${kind}-${key}.mp4`);
      fs.copyFileSync(clip, copy);
      const r = await ingestVideoFile(server.ctx, { filePath: copy, accessLevel: 'free', actorId: adminId, ...video });
      if (!r.ok) throw new Error(r.error.message);
      ids[key] = r.videoId;
    }
    for (const [key, names] of Object.entries({
      orTrue: { firstName: 'Ann', lastName: "' OR 1=1--" },
      irish: { firstName: 'Siobhan', lastName: "O'Hara" },
      plain: { firstName: 'Mia', lastName: 'Member' },
    }))
      members[key] = (await registerMember(api, names)).id;
  });
  afterAll(async () => server?.close());

  /** The catalog's answer to a query string, as keys of VIDEOS (newest first) and its total. */
  async function found(query: Record<string, string>, token?: string, route = '/videos') {
    const r = await api.get(`${route}?${new URLSearchParams({ ...query, pageSize: '100' })}`, token);
    expect(r.status, JSON.stringify(query)).toBe(200);
    const keys = (r.body.data.videos as { id: string }[]).map((v) => titleOf(v.id) ?? `unknown ${v.id}`);
    expect(r.body.data.total, JSON.stringify(query)).toBe(keys.length);
    return keys.sort();
  }

  it("the catalog's q, for a visitor and in the admin's list: each payload finds exactly the videos holding it literally", async () => {
    // Positive control: every video is listed without a search.
    expect(await found({})).toEqual(Object.keys(VIDEOS).sort());
    for (const [q, expected] of CATALOG_SEARCHES) {
      expect(await found({ q }), `q=${q}`).toEqual([...expected].sort());
      expect(await found({ q }, admin, '/admin/videos'), `admin q=${q}`).toEqual([...expected].sort());
    }
    // Nothing was dropped or changed by the payloads.
    expect(await found({})).toEqual(Object.keys(VIDEOS).sort());
  });

  it('the exact filters (model, tag, category) match the whole value literally, or nothing', async () => {
    expect(await found({ model: "' OR 1=1--" })).toEqual(['orTrue']);
    expect(await found({ model: "' OR '1'='1" })).toEqual([]);
    expect(await found({ model: "x' OR 1=1--" })).toEqual([]);
    expect(await found({ tag: "1' UNION SELECT email FROM users--" })).toEqual(['taggedUnion']);
    expect(await found({ tag: "' OR 1=1--" })).toEqual([]);
    expect(await found({ tag: '%' })).toEqual([]);
    expect(await found({ category: "Solo' OR 'a'='a" })).toEqual(['taggedUnion']);
    expect(await found({ category: "' OR 'a'='a" })).toEqual([]);
    expect(await found({ q: "' OR 1=1--", model: "' OR 1=1--" })).toEqual(['orTrue']);
    expect(await found({ q: "' OR 1=1--", tag: 'sunset' })).toEqual([]);
  });

  it("the admin's member search: each payload finds exactly the accounts whose name or address holds it literally", async () => {
    const search = async (q: string) => {
      const r = await api.get(`/admin/users?${new URLSearchParams({ q })}`, admin);
      expect(r.status, q).toBe(200);
      return (r.body.data.users as { id: string }[])
        .map((u) => Object.entries(members).find(([, id]) => id === u.id)?.[0] ?? (u.id === undefined ? 'none' : 'other'))
        .sort();
    };
    // Positive control: an empty search lists every account (the three members and the admin).
    expect(await search('')).toEqual(['irish', 'orTrue', 'other', 'plain']);
    expect(await search("' OR 1=1--")).toEqual(['orTrue']);
    expect(await search("ann ' or 1=1--")).toEqual(['orTrue']);
    expect(await search("' OR '1'='1")).toEqual([]);
    expect(await search("x' OR 1=1--")).toEqual([]);
    expect(await search("o'hara")).toEqual(['irish']);
    expect(await search("'")).toEqual(['irish', 'orTrue']);
    expect(await search("'; DROP TABLE users;--")).toEqual([]);
    expect(await search("' UNION SELECT * FROM users--")).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('_')).toEqual([]);
    expect(await search('\\')).toEqual([]);
    expect(await search('%@%')).toEqual([]);
    expect(await search('@example.test')).toEqual(['irish', 'orTrue', 'other', 'plain']);
    // The users table is still there, whole.
    expect(await search('')).toEqual(['irish', 'orTrue', 'other', 'plain']);
  });
});
