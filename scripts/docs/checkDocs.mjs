// The docs check's rules, on pages given as text (so a test can hand it a broken tree): relative
// links land on a file and heading, the index links every page, every variable of the server's
// environment schema and every CLI command is mentioned, and the generated figures are current.
import { brokenLinks, commandMention, envMention, linksOf, unmentioned } from './markdown.mjs';

/**
 * @param {object} input
 * @param {Map<string, string>} input.pages README.md and docs/**.md, repo-relative path → text
 * @param {(rel: string) => boolean} input.fileExists for link targets that are not pages
 * @param {string[]} input.envNames the keys of the server's environment schema
 * @param {string[]} [input.envDocNames] the variables env.docs.ts describes (default: all of envNames)
 * @param {string[]} input.commandNames the keys of the CLI's command table
 * @param {{ file: string, before: string, after: string }[]} [input.figures] regenerated files
 * @returns {string[]} one message per problem
 */
export function checkDocs({ pages, fileExists, envNames, envDocNames = envNames, commandNames, figures = [] }) {
  const problems = brokenLinks(pages, fileExists);
  const index = pages.get('docs/README.md');
  if (!index) problems.push('docs/README.md (the index) is missing');
  else {
    const linked = new Set(linksOf(index).map((l) => `docs/${l.target.split('#')[0]}`));
    for (const page of pages.keys())
      if (page.startsWith('docs/') && page !== 'docs/README.md' && !linked.has(page)) problems.push(`docs/README.md does not link ${page}`);
  }
  const docsText = [...pages]
    .filter(([p]) => p.startsWith('docs/'))
    .map(([, t]) => t)
    .join('\n');
  for (const name of unmentioned(envNames, docsText, envMention))
    problems.push(`environment variable ${name} (packages/api/src/config/env.ts) appears nowhere in docs/`);
  // The generated table names every variable, so a mention alone proves nothing: each needs its meaning.
  for (const name of envNames.filter((n) => !envDocNames.includes(n)))
    problems.push(`environment variable ${name} has no meaning in packages/api/src/config/env.docs.ts`);
  for (const name of envDocNames.filter((n) => !envNames.includes(n)))
    problems.push(`packages/api/src/config/env.docs.ts describes ${name}, which the environment schema no longer has`);
  for (const name of unmentioned(commandNames, docsText, commandMention))
    problems.push(`CLI command \`pnpm cli ${name}\` (packages/api/src/cli/commands.ts) appears nowhere in docs/`);
  for (const f of figures)
    if (f.before !== f.after) problems.push(`${f.file}: generated figures are stale; run node scripts/docs-figures.mjs`);
  return problems;
}
