// Each table is read and written by the module that owns it (run by `pnpm lint`): the map is
// packages/api/src/db/tableOwners.ts. Flags, in production files of packages/api/src (tests,
// testkits and the schema's history, db/migrations/, left out), SQL that names a table of another
// module (FROM, JOIN, INTO, UPDATE, TABLE), and a table a file creates that the map does not list.
// A module is a top-level folder of packages/api/src (a file directly in it is the kernel's).
//
// The reads that existed when the rule came (issue 39) were listed in KNOWN below, each a debt to
// pay by moving the read behind the owner's read port; all are paid, so the list is empty. It stays
// as the one place a read the rule cannot yet avoid would be written down, on purpose and in review:
// the lint fails on a new read that is not listed, and on a listed one that is gone (delete its line:
// the list only shrinks).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTest, sourceFiles } from './sourceFiles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = 'packages/api/src';

/** `module file table` of each cross-module read still allowed: empty (the rule found 37 in 24 files on its first day; issue 39 paid them all). */
export const KNOWN = `
`
  .trim()
  .split('\n')
  .filter(Boolean);

/** The map of tableOwners.ts: `table: 'module'` lines of its object literal. */
export function parseOwners(text) {
  const owners = {};
  for (const m of text.matchAll(/^\s+([a-z_][a-z0-9_]*): '([A-Za-z]+)',/gm)) owners[m[1]] = m[2];
  return owners;
}

const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?:\s+IF\s+(?:NOT\s+)?EXISTS)?)\s+([a-z_][a-z0-9_]*)\b/g;
const CREATED = /\bCREATE TABLE(?:\s+IF\s+NOT\s+EXISTS)?\s+([a-z_][a-z0-9_]*)/g;

/** The module of a file path relative to packages/api/src. */
export const moduleOf = (file) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : 'kernel');

/**
 * Cross-module reads and unlisted tables in `files` ({ file: path under packages/api/src, text }).
 * Comment lines are skipped; a table name the map does not know is not a table (a CTE, an alias).
 */
export function tableFindings(files, owners) {
  const reads = [];
  const unlisted = [];
  for (const { file, text } of files) {
    const module = moduleOf(file);
    const code = text
      .split('\n')
      .map((l) => (/^\s*(\/\/|\*|\/\*)/.test(l) ? '' : l))
      .join('\n');
    for (const m of code.matchAll(CREATED)) if (!(m[1] in owners)) unlisted.push({ file, table: m[1] });
    const seen = new Set();
    for (const m of code.matchAll(SQL_TABLE)) {
      const table = m[1];
      const owner = owners[table];
      if (!owner || owner === module || seen.has(table)) continue;
      seen.add(table);
      reads.push({ module, file, table, owner, line: code.slice(0, m.index).split('\n').length });
    }
  }
  return { reads, unlisted };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const owners = parseOwners(fs.readFileSync(path.join(root, SRC, 'db/tableOwners.ts'), 'utf8'));
  const files = [...sourceFiles(path.join(root, SRC))]
    .filter((p) => !isTest(path.basename(p)))
    .map((p) => ({ file: path.relative(path.join(root, SRC), p), text: fs.readFileSync(p, 'utf8') }))
    .filter((f) => !f.file.startsWith('db/migrations/'));
  const { reads, unlisted } = tableFindings(files, owners);
  const key = (r) => `${r.module} ${r.file} ${r.table}`;
  const found = new Set(reads.map(key));
  const fresh = reads.filter((r) => !KNOWN.includes(key(r)));
  const paid = KNOWN.filter((k) => !found.has(k));
  for (const r of fresh)
    console.error(`${SRC}/${r.file}:${r.line}: ${r.module} names ${r.table}, a table of ${r.owner}: read it through ${r.owner}'s index.ts`);
  for (const u of unlisted) console.error(`${SRC}/${u.file}: creates ${u.table}, which db/tableOwners.ts does not give an owner`);
  for (const k of paid) console.error(`scripts/check-table-owners.mjs: "${k}" is no longer read: delete it from KNOWN`);
  if (fresh.length || unlisted.length || paid.length) process.exit(1);
  console.log(`table owners: ${Object.keys(owners).length} tables, ${KNOWN.length} known cross-module reads left, none new`);
}
