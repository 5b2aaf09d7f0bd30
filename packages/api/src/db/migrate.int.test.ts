/**
 * Schema upgrades: a store written by the schema before versioned migrations (fixture DDL, filled with
 * rows the current code wrote) is adopted by the current code with every row intact; a database newer
 * than the code is refused; bumping a projection's version drops, recreates and refills the read models.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { apiClient, type FreshStore, forEachStore, freshStore, startTestServer, type TestServer, testEnv } from '../../test/harness.js';
import { generateBillingHistory } from '../audit/audit.testkit.js';
import { migrateProjections, type Projection, rebuildProjections } from '../eventstore/projections.js';
import { cookieHeader, login, registerMember } from '../identity/identity.testkit.js';
import { openDatabase, SchemaTooNewError } from '../kernel/context.js';
import { migrate, splitStatements } from './migrate.js';
import { dataKeys } from './migrations/005_data_keys.js';
import { migrations } from './migrations/index.js';
import type { Db } from './types.js';

const OLD_SCHEMA = fs.readFileSync(path.join(import.meta.dirname, '../../test/fixtures/schema-before-migrations.sql'), 'utf8');
const OLD_TABLES = [...OLD_SCHEMA.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1] as string);
/** Old tables a later migration drops (002: uploads moved to tus); the current code has no rows for them. */
const DROPPED_TABLES = ['upload_sessions'];
const KEPT_TABLES = OLD_TABLES.filter((t) => !DROPPED_TABLES.includes(t));

async function dump(db: Db, table: string): Promise<Record<string, unknown>[]> {
  return db.all(`SELECT * FROM ${table} ORDER BY 1, 2`);
}

/** Columns of `table` in `db` (also when it has no rows). */
async function tableColumns(db: Db, table: string): Promise<string[]> {
  const rows =
    db.dialect === 'postgres'
      ? await db.all<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_name = ?', [table])
      : await db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`);
  return rows.map((r) => r.name);
}

/** Copies the rows, in the columns both sides have (a read model may have gained columns since the old schema). */
async function copyRows(from: Db, to: Db, table: string): Promise<number> {
  const rows = await dump(from, table);
  const target = await tableColumns(to, table);
  await to.transaction(async (tx) => {
    for (const row of rows) {
      const cols = Object.keys(row).filter((c) => target.includes(c));
      await tx.run(
        `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
        cols.map((c) => row[c]),
      );
    }
  });
  return rows.length;
}

async function tableNames(db: Db): Promise<string[]> {
  const rows =
    db.dialect === 'postgres'
      ? await db.all<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`)
      : await db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`);
  return rows.map((r) => r.name).sort();
}

async function columns(db: Db, table: string): Promise<string[]> {
  const rows = await db.all<Record<string, unknown>>(`SELECT * FROM ${table} LIMIT 1`);
  return Object.keys(rows[0] ?? {}).sort();
}

forEachStore('schema migrations', (kind) => {
  let scratch: TestServer | undefined;
  let upgraded: TestServer | undefined;
  let old: FreshStore | undefined;
  let oldDb: Db | undefined;

  beforeEach(async () => {
    old = await freshStore(kind);
    oldDb = openDatabase(testEnv(old.env));
  });
  afterEach(async () => {
    await oldDb?.close().catch(() => {});
    await upgraded?.stop();
    await scratch?.close();
    await old?.cleanup();
    scratch = upgraded = old = oldDb = undefined;
  });

  it('adopts a store written by the schema before migrations: rows intact, migrations recorded, read models rebuilt', async () => {
    // Rows as the current code writes them: members, a login (refresh session), mails, billing history.
    scratch = await startTestServer(kind);
    const api = apiClient(scratch.url);
    const member = await registerMember(api);
    const { cookies } = await login(api, member.email, member.password);
    await generateBillingHistory(scratch.ctx.store, { members: 20, start: new Date(Date.now() - 86_400_000) });
    await scratch.subscribers.drain();

    // The old schema (no schema_migrations, no projection_versions), holding exactly those rows.
    const db = oldDb as Db;
    await db.exec(OLD_SCHEMA);
    expect(await tableNames(db)).toEqual([...OLD_TABLES].sort());
    const before: Record<string, Record<string, unknown>[]> = {};
    const oldColumns: Record<string, string[]> = {};
    for (const t of KEPT_TABLES) {
      oldColumns[t] = await tableColumns(db, t);
      await copyRows(scratch.ctx.db, db, t);
      before[t] = await dump(db, t);
    }
    // The current code seals personal fields in the events it wrote above: their data keys (a table
    // of a later migration, created here ahead of it, which it adopts) go with them.
    await db.exec(dataKeys.sqlite);
    await copyRows(scratch.ctx.db, db, 'data_keys');
    expect(before.events?.length).toBeGreaterThan(60);
    expect(before.refresh_tokens?.length).toBe(1);
    expect(before.mail_outbox?.length).toBeGreaterThan(0);
    await db.close();
    oldDb = undefined;
    await scratch.stop();

    upgraded = await startTestServer(kind, { store: old });
    const up = upgraded.ctx.db;
    // Rows intact, in the old columns (read models may have gained some since).
    for (const t of KEPT_TABLES) {
      const cols = oldColumns[t] ?? [];
      expect(
        (await dump(up, t)).map((r) => Object.fromEntries(cols.map((c) => [c, r[c]]))),
        t,
      ).toEqual(before[t]);
    }
    for (const t of DROPPED_TABLES) expect(await tableNames(up)).not.toContain(t);
    expect(await up.all('SELECT id, name FROM schema_migrations ORDER BY id')).toEqual(migrations.map((m) => ({ id: m.id, name: m.name })));
    const versions = await up.all<{ name: string; version: number }>('SELECT name, version FROM projection_versions ORDER BY name');
    expect(versions.map((v) => ({ ...v, version: Number(v.version) }))).toEqual(
      [...upgraded.ctx.projections].sort((a, b) => a.name.localeCompare(b.name)).map((p) => ({ name: p.name, version: p.version })),
    );

    // Served: the old refresh session still works, the member can log in, appends keep the chain.
    const api2 = apiClient(upgraded.url);
    const refreshed = await api2.call('POST', '/auth/refresh', {
      headers: { cookie: cookieHeader(cookies), 'x-csrf-token': cookies.csrf_token ?? '' },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.user).toMatchObject({ id: member.id, email: member.email });
    expect((await login(api2, member.email, member.password)).token).toEqual(expect.any(String));
    await registerMember(api2);
    expect(await upgraded.ctx.store.headPosition()).toBe((before.events?.length ?? 0) + 1);

    // Opening it again applies nothing and rebuilds nothing.
    expect((await migrate(up)).applied).toEqual([]);
    expect((await migrateProjections(up, upgraded.ctx.projections)).rebuilt).toEqual([]);
  });

  it('refuses a database whose migrations are newer than the code', async () => {
    const db = oldDb as Db;
    await migrate(db);
    const newest = Math.max(...migrations.map((m) => m.id));
    await db.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [
      newest + 1,
      'from_the_future',
      new Date().toISOString(),
    ]);
    await expect(migrate(db)).rejects.toBeInstanceOf(SchemaTooNewError);
    await db.close();
    oldDb = undefined;
    await expect(startTestServer(kind, { store: old })).rejects.toThrow(/newer than this code knows/);
  });

  it('a changed projection version drops, recreates and refills its tables with identical rows', async () => {
    scratch = await startTestServer(kind);
    const api = apiClient(scratch.url);
    for (let i = 0; i < 3; i++) await registerMember(api);
    await generateBillingHistory(scratch.ctx.store, { members: 10, start: new Date(Date.now() - 86_400_000) });
    const { db, projections } = scratch.ctx;
    const users = projections.find((p) => p.name === 'users') as Projection;
    const usersBefore = await dump(db, 'users');
    const paymentsBefore = await dump(db, 'billing_payments');
    const cols = await columns(db, 'users');
    // A column the projection's schema does not have: only a drop + create removes it.
    await db.exec('ALTER TABLE users ADD COLUMN leftover TEXT');
    expect(await columns(db, 'users')).toContain('leftover');

    const logged: unknown[] = [];
    const bumped = projections.map((p) => (p === users ? { ...p, version: p.version + 1 } : p));
    const r = await migrateProjections(db, bumped, { logger: { info: (o: unknown) => logged.push(o) }, codec: scratch.ctx.shredder });
    expect(r.rebuilt).toEqual(['users']);
    expect(await columns(db, 'users')).toEqual(cols);
    expect(await dump(db, 'users')).toEqual(usersBefore);
    expect(await dump(db, 'billing_payments')).toEqual(paymentsBefore);
    expect(await db.get('SELECT version FROM projection_versions WHERE name = ?', ['users'])).toMatchObject({
      version: users.version + 1,
    });
    expect(logged).toContainEqual(expect.objectContaining({ projection: 'users', from: users.version, to: users.version + 1 }));
    expect(logged).toContainEqual(expect.objectContaining({ projections: projections.map((p) => p.name), events: expect.any(Number) }));

    // `projections rebuild` recreates every table too.
    await db.exec('ALTER TABLE billing_payments ADD COLUMN leftover TEXT');
    await rebuildProjections(db, scratch.ctx.store, projections);
    expect(await columns(db, 'billing_payments')).not.toContain('leftover');
    expect(await dump(db, 'billing_payments')).toEqual(paymentsBefore);
    expect(await dump(db, 'users')).toEqual(usersBefore);
  });
});

it('splits migration scripts into statements', () => {
  expect(splitStatements('CREATE TABLE a (x INT);\nCREATE INDEX b ON a (x);\n')).toEqual([
    'CREATE TABLE a (x INT)',
    'CREATE INDEX b ON a (x)',
  ]);
});
