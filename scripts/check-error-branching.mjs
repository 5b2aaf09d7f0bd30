// Clients and the server branch on an error's code, never on its message text (run by `pnpm lint`):
// the message is product copy and may change; the code (packages/ui/src/api/schemas/errorCodes.ts)
// does not. Flags, in production files under packages/*/src, a comparison of an error or message
// with a string or a constant (`error === '…'`, `message !== SOME_TEXT`), and text searches in one
// (`.message.includes(…)`, `/…/.test(err.message)`). A line that reads a third party's message it
// cannot get a code for (Node's errors) says why with `message-text:` in a comment on that line or the one before.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTest, sourceFiles } from './sourceFiles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const subject = String.raw`(?:\b(?:error|message|msg)|\.(?:error|message))\??`;
const rules = [
  new RegExp(String.raw`${subject}\s*[!=]==?\s*(?:['"\x60]|[A-Z][A-Z0-9_]{2,}\b)`),
  new RegExp(String.raw`(?:['"\x60][^'"\x60]*['"\x60]|\b[A-Z][A-Z0-9_]{2,})\s*[!=]==?\s*[\w.?]*${subject}\b`),
  new RegExp(String.raw`${subject}\.(?:includes|startsWith|endsWith|match|search|indexOf)\(`),
  new RegExp(String.raw`\.test\(\s*[\w.?]*${subject}\s*\)`),
];

/** Every line of `text` that branches on message text (1-based line numbers). */
export function messageBranches(text) {
  const found = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (/message-text:/.test(line) || /message-text:/.test(lines[i - 1] ?? '') || /^\s*(\/\/|\*)/.test(line)) return;
    // A type test (`typeof body.error === 'string'`) reads no text.
    const code = line.replace(/typeof\s+[\w.?]+\s*[!=]==?\s*'\w+'/g, '');
    if (rules.some((r) => r.test(code))) found.push({ line: i + 1, text: line.trim() });
  });
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = [];
  for (const pkg of fs.readdirSync(path.join(root, 'packages'))) {
    const src = path.join(root, 'packages', pkg, 'src');
    if (!fs.existsSync(src)) continue;
    for (const file of [...sourceFiles(src)].filter((f) => !isTest(path.basename(f))))
      for (const hit of messageBranches(fs.readFileSync(file, 'utf8')))
        problems.push(`${path.relative(root, file)}:${hit.line}: branches on message text, use the error's code: ${hit.text}`);
  }
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log('errors: no branch on message text (codes only)');
}
