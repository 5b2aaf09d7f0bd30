// Keeps test code out of production code (run by `pnpm lint`): a production file under
// packages/*/src may not import a test helper (`*.testkit.ts`), a test file, or a package's
// `test/` / `e2e/` folder. Test helpers beside production code end in `.testkit.ts`, only that.
// And the other packages' tests reach the API only through its test-support entry point
// (packages/api/test/support.ts), never its `src/` or its other test files; and no test loads
// the site config by the operator's lookup (`loadSiteConfig()` would read site.config.json):
// tests use packages/api/test/siteConfig.ts (site.config.example.json).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const isTest = (f) => /\.(unit|int|e2e)\.test\.tsx?$/.test(f) || /\.testkit\.tsx?$/.test(f);
const testImport =
  /from\s+'([^']*(?:\.testkit|\.test|\/test\/|\/e2e\/)[^']*)'|import\(\s*'([^']*(?:\.testkit|\.test|\/test\/|\/e2e\/)[^']*)'\s*\)/g;
// The old helper names this rule replaced: a file so named must become `*.testkit.ts`.
const oldHelperName = /(\.testSupport|\.testUtils|\.fixtures?)\.tsx?$|\/test[A-Z][A-Za-z]*\.tsx?$/;

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (/\.tsx?$/.test(e.name)) yield p;
  }
}

const problems = [];
for (const pkg of fs.readdirSync(path.join(root, 'packages'))) {
  const src = path.join(root, 'packages', pkg, 'src');
  if (!fs.existsSync(src)) continue;
  for (const file of walk(src)) {
    const rel = path.relative(root, file);
    if (oldHelperName.test(file)) problems.push(`${rel}: a test helper beside production code is named *.testkit.ts`);
    if (isTest(file)) {
      if (/loadSiteConfig\(\s*(undefined)?\s*\)/.test(fs.readFileSync(file, 'utf8')))
        problems.push(`${rel}: loadSiteConfig() reads the operator's site.config.json; use test/siteConfig.ts`);
      continue;
    }
    for (const m of fs.readFileSync(file, 'utf8').matchAll(testImport))
      problems.push(`${rel}: production code imports test code (${m[1] ?? m[2]})`);
  }
}
for (const file of walk(path.join(root, 'packages', 'api', 'test'))) {
  if (/loadSiteConfig\(\s*(undefined)?\s*\)/.test(fs.readFileSync(file, 'utf8')))
    problems.push(`${path.relative(root, file)}: loadSiteConfig() reads the operator's site.config.json; use test/siteConfig.ts`);
}

const apiImport = /from\s+'([^']*\/api\/(?:src|test)\/[^']*)'/g;
for (const pkg of fs.readdirSync(path.join(root, 'packages')).filter((p) => p !== 'api')) {
  for (const dir of ['src', 'test', 'e2e']) {
    const d = path.join(root, 'packages', pkg, dir);
    if (!fs.existsSync(d)) continue;
    for (const file of walk(d)) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(apiImport)) {
        if (!/\/api\/test\/support(\.js)?$/.test(m[1]))
          problems.push(`${path.relative(root, file)}: imports ${m[1]}; use packages/api/test/support.ts`);
      }
    }
  }
}

if (problems.length) {
  console.error(`Test-code boundaries broken:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('test code: kept out of production files; other packages reach the API through test/support.ts');
