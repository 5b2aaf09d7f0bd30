// Keeps test code out of production code, and tests honest about time (run by `pnpm lint`).
//
// Boundaries: a production file under packages/*/src may not import a test helper (`*.testkit.ts`),
// a test file, or a package's `test/` / `e2e/` folder. Test helpers beside production code end in
// `.testkit.ts`, only that. The other packages' tests reach the API only through its test-support
// entry point (packages/api/test/support.ts), never its `src/` or its other test files; and no test
// loads the site config by the operator's lookup (`loadSiteConfig()` would read site.config.json):
// tests use packages/api/test/siteConfig.ts (site.config.example.json).
//
// Honesty (issue 37): in test code (*.unit|int|e2e.test.ts(x), *.testkit.ts(x), packages/*/test,
// packages/*/e2e) and vitest.config.ts, no
// - `retry:` (vitest's option): a test that passes on its second try hides the failure it had;
// - `.catch(() => <value>)` whose value is then asserted (inside an `expect(…)`, or assigned to a
//   name an `expect(…)` later reads): the failure becomes whatever the catch says, so the test
//   cannot fail for it. Where swallowing is right, `// check-test-code: allow-catch <reason>` on
//   the line or the line before says why;
// - fixed sleep over 1 s (`setTimeout(r, N)`, `sleep(N)`, `delay(N)`, `waitForTimeout(N)`): a test
//   waits for a condition (an event, a state, a log line). Where there is none to observe,
//   `// fixed wait: <the condition it cannot observe>` on the line or the line before says so.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTest, sourceFiles } from './sourceFiles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testImport =
  /from\s+'([^']*(?:\.testkit|\.test|\/test\/|\/e2e\/)[^']*)'|import\(\s*'([^']*(?:\.testkit|\.test|\/test\/|\/e2e\/)[^']*)'\s*\)/g;
// The old helper names this rule replaced: a file so named must become `*.testkit.ts`.
const oldHelperName = /(\.testSupport|\.testUtils|\.fixtures?)\.tsx?$|\/test[A-Z][A-Za-z]*\.tsx?$/;

/** Whether `rel` (a path from the repository root, `/`-separated) is test code the honesty rules apply to. */
export function isTestCode(rel) {
  return isTest(rel) || /^packages\/[^/]+\/(test|e2e)\//.test(rel);
}

/** The longest fixed sleep allowed without a `fixed wait:` comment, in ms. */
export const MAX_SLEEP_MS = 1000;

/** `retry:` with a value, not a method or a function (`retry: (at) => …`). */
const RETRY = /\bretry\s*:(?!\s*(?:\(|async\b|function\b|$))/;
const SLEEP =
  /\b(?:setTimeout\(\s*(?:[A-Za-z_$][\w$]*\s*,\s*)?|(?:sleep|delay|waitForTimeout)\(\s*)(\d[\d_]*(?:\.\d+)?(?:\s*\*\s*\d[\d_]*)*)\s*[,)]/g;
/** `.catch(` with a handler whose value does not depend on the error: a literal, an object, an empty block. */
const SWALLOW = /\.catch\(\s*(?:\(\s*[\w$]*\s*\)|[\w$]+)\s*=>\s*(?:undefined\b|null\b|true\b|false\b|-?\d|['"`]|\(\s*[{[]|\[|\{\s*\})/g;
const ASSERT = /\b(?:expect(?:\.soft)?|assert(?:\.\w+)?)\s*$/;

const isComment = (line) => /^\s*(\/\/|\*|\/\*)/.test(line);
const withoutComment = (line) => line.replace(/\s\/\/.*$/, '');
const lineAt = (text, index) => text.slice(0, index).split('\n').length;
const marked = (lines, n, tag) => tag.test(lines[n - 1] ?? '') || tag.test(lines[n - 2] ?? '');

/** A number literal as written (`2_000`, `5 * 1000`). */
function msOf(literal) {
  return literal
    .split('*')
    .map((f) => Number(f.trim().replaceAll('_', '')))
    .reduce((a, b) => a * b, 1);
}

/**
 * From `index`, walks back over balanced brackets to the start of the statement around it: the
 * unmatched `(` met on the way (innermost first) and where the statement starts.
 */
function enclosing(text, index) {
  const opens = [];
  let depth = 0;
  let i = index - 1;
  for (; i >= 0; i--) {
    const c = text[i];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth > 0) depth--;
      else if (c === '(') opens.push(i);
      else break; // an unmatched `[` or `{`: the statement starts after it
    } else if (c === ';' && depth === 0) break;
  }
  return { opens, start: i + 1 };
}

/** From a statement's start, where it ends and where the block around it ends. */
function forward(text, index) {
  let depth = 0;
  let statementEnd = -1;
  for (let i = index; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return { statementEnd: statementEnd < 0 ? i : statementEnd, blockEnd: i };
      depth--;
    } else if (c === ';' && depth === 0 && statementEnd < 0) statementEnd = i;
  }
  return { statementEnd: statementEnd < 0 ? text.length : statementEnd, blockEnd: text.length };
}

/** The argument text of every `expect(…)` in `text`. */
function expectations(text) {
  const out = [];
  for (const m of text.matchAll(/\bexpect(?:\.soft)?\(/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')') depth--;
    }
    out.push(text.slice(m.index + m[0].length, i - 1));
  }
  return out;
}

/**
 * Every place in a test file's `text` that breaks a rule about time and failure (1-based lines).
 * @returns {{ line: number, rule: 'retry' | 'catch' | 'sleep', text: string }[]}
 */
export function timeAndFailureProblems(text) {
  const lines = text.split('\n');
  const found = [];
  lines.forEach((line, i) => {
    if (isComment(line)) return;
    if (RETRY.test(withoutComment(line))) found.push({ line: i + 1, rule: 'retry', text: line.trim() });
  });
  for (const m of text.matchAll(SLEEP)) {
    const n = lineAt(text, m.index);
    if (isComment(lines[n - 1] ?? '') || msOf(m[1]) <= MAX_SLEEP_MS || marked(lines, n, /\/\/.*fixed wait:/)) continue;
    found.push({ line: n, rule: 'sleep', text: (lines[n - 1] ?? '').trim() });
  }
  for (const m of text.matchAll(SWALLOW)) {
    const n = lineAt(text, m.index);
    if (isComment(lines[n - 1] ?? '') || marked(lines, n, /\/\/.*check-test-code: allow-catch/)) continue;
    const { opens, start } = enclosing(text, m.index);
    // Inside an assertion: `expect((await x.catch(() => …)).status)`.
    let asserted = opens.some((o) => ASSERT.test(text.slice(Math.max(0, o - 40), o)));
    // Or assigned to a name that an assertion in the rest of the block reads.
    if (!asserted) {
      const head = text.slice(start, m.index).replace(/\/\/[^\n]*/g, '');
      const assigned = /^\s*(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*=(?!=)/.exec(head);
      if (assigned) {
        const name = assigned[1];
        const { statementEnd, blockEnd } = forward(text, start);
        const rest = text.slice(statementEnd, blockEnd);
        asserted = expectations(rest).some((args) => new RegExp(`(?<![\\w$.])${name.replace('$', '\\$')}\\b`).test(args));
      }
    }
    if (asserted) found.push({ line: n, rule: 'catch', text: (lines[n - 1] ?? '').trim() });
  }
  return found.sort((a, b) => a.line - b.line);
}

const WHY = {
  retry: 'vitest `retry:` hides a failure behind a second try; find its cause',
  catch:
    'a `.catch(() => …)` decides what is asserted, so the test cannot fail for it (or say why: `// check-test-code: allow-catch <reason>`)',
  sleep: `a fixed sleep over ${MAX_SLEEP_MS} ms; wait for a condition (or name the one it cannot observe: \`// fixed wait: <condition>\`)`,
};

function main() {
  const problems = [];
  const packages = fs.readdirSync(path.join(root, 'packages'));
  for (const pkg of packages) {
    const src = path.join(root, 'packages', pkg, 'src');
    if (!fs.existsSync(src)) continue;
    for (const file of sourceFiles(src)) {
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
  for (const file of sourceFiles(path.join(root, 'packages', 'api', 'test'))) {
    if (/loadSiteConfig\(\s*(undefined)?\s*\)/.test(fs.readFileSync(file, 'utf8')))
      problems.push(`${path.relative(root, file)}: loadSiteConfig() reads the operator's site.config.json; use test/siteConfig.ts`);
  }

  const apiImport = /from\s+'([^']*\/api\/(?:src|test)\/[^']*)'/g;
  for (const pkg of packages.filter((p) => p !== 'api')) {
    for (const dir of ['src', 'test', 'e2e']) {
      const d = path.join(root, 'packages', pkg, dir);
      if (!fs.existsSync(d)) continue;
      for (const file of sourceFiles(d)) {
        for (const m of fs.readFileSync(file, 'utf8').matchAll(apiImport)) {
          if (!/\/api\/test\/support(\.js)?$/.test(m[1]))
            problems.push(`${path.relative(root, file)}: imports ${m[1]}; use packages/api/test/support.ts`);
        }
      }
    }
  }

  const honesty = [];
  const testFiles = [path.join(root, 'vitest.config.ts')];
  for (const pkg of packages)
    for (const dir of ['src', 'test', 'e2e']) {
      const d = path.join(root, 'packages', pkg, dir);
      if (fs.existsSync(d))
        for (const file of sourceFiles(d)) if (isTestCode(path.relative(root, file).split(path.sep).join('/'))) testFiles.push(file);
    }
  for (const file of testFiles)
    for (const p of timeAndFailureProblems(fs.readFileSync(file, 'utf8')))
      honesty.push(`${path.relative(root, file)}:${p.line}: ${WHY[p.rule]}: ${p.text}`);

  if (problems.length) console.error(`Test-code boundaries broken:\n  ${problems.join('\n  ')}`);
  if (honesty.length) console.error(`Tests that can pass for the wrong reason or fail for time alone:\n  ${honesty.join('\n  ')}`);
  if (problems.length || honesty.length) process.exit(1);
  console.log(
    `test code: kept out of production files; other packages reach the API through test/support.ts; no retry, no asserted catch, no fixed sleep over ${MAX_SLEEP_MS} ms without its reason (${testFiles.length} files)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
