// The docs check of `pnpm lint` (rules in scripts/docs/checkDocs.mjs): no broken relative link or
// anchor in README.md and docs/, docs/README.md links every page, every environment variable of the
// server's schema and every `pnpm cli` command (read from the CLI's own table) appears in docs/, and
// the generated figures (scripts/docs-figures.mjs) are up to date.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTsx } from './docs/underTsx.mjs';

ensureTsx(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { checkDocs } = await import('./docs/checkDocs.mjs');
const { appFacts, codeFacts, regenerate } = await import('./docs/figures.mjs');

function* markdownUnder(dir) {
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) yield* markdownUnder(rel);
    else if (e.name.endsWith('.md')) yield rel;
  }
}

const pages = new Map(['README.md', ...markdownUnder('docs')].map((p) => [p, fs.readFileSync(path.join(root, p), 'utf8')]));
const facts = { ...(await codeFacts(root)), ...(await appFacts(root)) };
const problems = checkDocs({
  pages,
  fileExists: (rel) => fs.existsSync(path.join(root, rel)),
  envNames: facts.envNames,
  envDocNames: Object.keys(facts.envDocs),
  commandNames: facts.commandNames,
  figures: await regenerate(root, facts),
});
for (const p of problems) console.error(`docs: ${p}`);
if (problems.length) process.exit(1);
console.log(
  `docs: ${pages.size} pages checked (links, anchors, ${facts.envNames.length} variables, ${facts.commandNames.length} commands, generated figures)`,
);
