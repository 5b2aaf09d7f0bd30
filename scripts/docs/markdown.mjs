// Pure Markdown helpers for the docs check (scripts/check-docs.mjs): GitHub's heading anchors, the
// relative links of a page, and whether every link lands on a file and, with `#anchor`, on a heading.
import path from 'node:path';

/** Lines outside fenced code blocks, with inline code spans blanked (links inside code are not links). */
export function proseLines(markdown) {
  let fence = null;
  return markdown.split('\n').map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return '';
    }
    return fence ? '' : line.replace(/`+[^`]*`+/g, (s) => ' '.repeat(s.length));
  });
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to dashes. */
export function slugify(heading) {
  return heading
    .replace(/<[^>]+>/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings (repeats get -1, -2, … as on GitHub) and explicit ids. */
export function anchorsOf(markdown) {
  const seen = new Map();
  const anchors = new Set();
  let fence = null;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1][0];
      else if (f[1][0] === fence) fence = null;
      continue;
    }
    if (fence) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slugify(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** The link targets of a page (inline links, images, `<img src>`), with their line numbers. */
export function linksOf(markdown) {
  const out = [];
  proseLines(markdown).forEach((line, i) => {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
    for (const m of line.matchAll(/<img\s[^>]*src="([^"]+)"/g)) out.push({ target: m[1], line: i + 1 });
  });
  return out;
}

const external = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * Broken relative links among `pages` (repo-relative path → Markdown text). `fileExists(relPath)`
 * answers for targets that are not pages (images, source files). Returns one message per problem.
 */
export function brokenLinks(pages, fileExists) {
  const problems = [];
  const anchorCache = new Map();
  const anchors = (p) => {
    if (!anchorCache.has(p)) anchorCache.set(p, anchorsOf(pages.get(p) ?? ''));
    return anchorCache.get(p);
  };
  for (const [page, text] of pages) {
    for (const { target, line } of linksOf(text)) {
      if (external.test(target)) continue;
      const [rawFile, anchor] = target.split('#', 2);
      const file = decodeURIComponent(rawFile);
      const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
      const where = `${page}:${line}`;
      if (resolved.startsWith('..')) {
        problems.push(`${where}: link ${target} leaves the repository`);
        continue;
      }
      const isPage = pages.has(resolved);
      if (!isPage && !fileExists(resolved.replace(/\/$/, ''))) {
        problems.push(`${where}: link ${target}: ${resolved} does not exist`);
        continue;
      }
      if (anchor !== undefined && anchor !== '') {
        if (!resolved.endsWith('.md')) continue; // anchors into source files are line fragments
        if (!isPage) {
          problems.push(`${where}: link ${target}: ${resolved} is not among the checked pages`);
          continue;
        }
        if (!anchors(resolved).has(anchor)) problems.push(`${where}: link ${target}: no heading #${anchor} in ${resolved}`);
      }
    }
  }
  return problems;
}

/** The names (variables, commands) that `text` never mentions; `pattern(name)` says what counts. */
export function unmentioned(names, text, pattern) {
  return names.filter((n) => !pattern(n).test(text));
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An environment variable counts as documented when its name appears as a word. */
export const envMention = (name) => new RegExp(`(?<![A-Z0-9_])${escapeRegExp(name)}(?![A-Z0-9_])`);

/** A CLI command counts as documented when it appears in code (`pnpm cli audit verify`, `` `audit verify` ``). */
export const commandMention = (name) => new RegExp(`\`(?:pnpm cli )?${escapeRegExp(name)}(?=[\` ])`);
