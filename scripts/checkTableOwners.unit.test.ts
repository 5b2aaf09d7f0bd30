/**
 * The table-ownership rule of scripts/check-table-owners.mjs: a module's SQL naming another
 * module's table is found (planted in a copy of a real file), its own tables, comments and names
 * that are no table are not; the map it parses is the one the API exports.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { TABLE_OWNERS } from '../packages/api/src/db/tableOwners';
import { KNOWN, moduleOf, parseOwners, tableFindings } from './check-table-owners.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const ownersText = fs.readFileSync(path.join(ROOT, 'packages/api/src/db/tableOwners.ts'), 'utf8');

it('parses the map the API exports, every table once', () => {
  expect(parseOwners(ownersText)).toEqual(TABLE_OWNERS);
});

it("finds a module's SQL that names another module's table, and nothing else", () => {
  const owners = parseOwners(ownersText);
  const file = 'chat/chat.service.ts';
  const real = fs.readFileSync(path.join(ROOT, 'packages/api/src', file), 'utf8');
  const before = tableFindings([{ file, text: real }], owners).reads.map((r) => r.table);
  // The planted read: chat looks at identity's sessions straight in identity's table.
  const planted = `${real}\nexport const plantedSessions = (db: { all(sql: string): unknown }) =>\n  db.all('SELECT s.id FROM chat_conversations c JOIN refresh_sessions s ON s.user_id = c.user_id');\n`;
  const after = tableFindings([{ file, text: planted }], owners).reads;
  expect(after.filter((r) => !before.includes(r.table))).toEqual([
    expect.objectContaining({ module: 'chat', table: 'refresh_sessions', owner: 'identity', line: real.split('\n').length + 2 }),
  ]);

  const clean = [
    "db.all('SELECT * FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id')",
    '// joins FROM users in a comment',
    ' * UPDATE users in a doc comment',
    "db.all('WITH recent AS (SELECT 1) SELECT * FROM recent')",
  ].join('\n');
  expect(tableFindings([{ file, text: clean }], owners)).toEqual({ reads: [], unlisted: [] });
});

it('finds a table created without an owner, and names the kernel for files at the root', () => {
  expect(tableFindings([{ file: 'chat/x.ts', text: "db.exec('CREATE TABLE IF NOT EXISTS chat_drafts (id TEXT)')" }], {})).toEqual({
    reads: [],
    unlisted: [{ file: 'chat/x.ts', table: 'chat_drafts' }],
  });
  expect([moduleOf('context.ts'), moduleOf('billing/chain/chainWatcher.ts')]).toEqual(['kernel', 'billing']);
});

it('lists each known debt once', () => {
  expect(new Set(KNOWN).size).toBe(KNOWN.length);
});
