/**
 * The spec's quoted product copy stays in the product, or its departure is written down (issue 40).
 *
 * docs/SPEC.md quotes the words the product shows in single quotes ('Active subscription required
 * to view videos', 'Return Home'). Every such string must appear in the product's sources
 * (packages/{web,ui,api,admin-desktop}/src, tests and testkits left out) unless docs/spec-departures.md
 * quotes it: there the product chose other words, or no screen at all, on purpose, and says why.
 *
 * The rule for what counts as a quoted string:
 * - it opens with a `'` at the start of a line or after a character that is not a letter or digit
 *   (so the apostrophe of "user's" opens nothing), and closes with a `'` not followed by a letter or
 *   digit; an apostrophe between two letters inside it belongs to it ('We can't find that page.',
 *   'I've Sent Payment');
 * - placeholders stand for what the product fills in: `{model}`, `{title}`, `(count)`: each literal
 *   piece between them must appear (`More from {model}` → 'More from ');
 * - left out, as not user-facing copy: a single word in lower case (a field value or a term such as
 *   'last updated' would be two words, so that one counts), and the one quote the spec uses as a
 *   definition, not a label: 'Approved' ("'Approved' means approved is true, or status is approved
 *   or active", §4, the approval rule's name).
 * The match is exact (case and punctuation): the spec's copy is to be used exactly (STYLE.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isTest, sourceFiles } from './sourceFiles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PRODUCT_SOURCES = ['packages/web/src', 'packages/ui/src', 'packages/api/src', 'packages/admin-desktop/src'];

/** Quoted definitions, not copy (see the rule above). */
const DEFINITIONS = new Set(['Approved']);

/** Every single-quoted string of a text, by the rule above. */
function quotedStrings(text: string): string[] {
  const found: string[] = [];
  const quote = /(?<![\p{L}\p{N}])'((?:[^'\n]|(?<=\p{L})'(?=\p{L}))+)'(?![\p{L}\p{N}])/gu;
  for (const m of text.matchAll(quote)) if (m[1]) found.push(m[1]);
  return [...new Set(found)];
}

/** Whether a quoted string is product copy (not a lone lower-case word, not a definition). */
function isCopy(quoted: string): boolean {
  if (DEFINITIONS.has(quoted)) return false;
  return !/^[a-z][a-z_.-]*$/.test(quoted);
}

/** The literal pieces a product string must contain: the quote split at its placeholders. */
function literalPieces(quoted: string): string[] {
  return quoted
    .split(/\{[^}]*\}|\(count\)/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

function productText(): string {
  const parts: string[] = [];
  for (const dir of PRODUCT_SOURCES)
    for (const file of sourceFiles(path.join(root, dir))) if (!isTest(file)) parts.push(fs.readFileSync(file, 'utf8'));
  return parts.join('\n');
}

/**
 * The spec's copy missing from `product` and not quoted in `departures`. A string with an
 * apostrophe also counts as present in the JSX/HTML escaped forms (`&apos;`, `'` inside a
 * double-quoted or template string is as written).
 */
function missingCopy(spec: string, product: string, departures: string): string[] {
  const listed = new Set(quotedStrings(departures));
  return quotedStrings(spec)
    .filter(isCopy)
    .filter((q) => !listed.has(q))
    .filter((q) => !literalPieces(q).every((piece) => product.includes(piece) || product.includes(piece.replaceAll("'", '&apos;'))));
}

describe("the spec's quoted copy", () => {
  it('reads quotes with apostrophes inside, and leaves possessives alone', () => {
    const text = "heading 'Oops!', text 'We can't find that page.', the user's email, status 'Approved' and 'pending'.";
    expect(quotedStrings(text)).toEqual(['Oops!', "We can't find that page.", 'Approved', 'pending']);
    expect(quotedStrings(text).filter(isCopy)).toEqual(['Oops!', "We can't find that page."]);
    expect(literalPieces('Pending User Approvals (count)')).toEqual(['Pending User Approvals']);
    expect(literalPieces('Video "{title}" uploaded successfully! Video ID: {id}')).toEqual([
      'Video "',
      '" uploaded successfully! Video ID:',
    ]);
  });

  it('fails for a quoted string the product lost without a departure, passes once one lists it', () => {
    const spec = "shows 'Subscribe to Watch' and 'Active subscription required to view videos'.";
    expect(missingCopy(spec, '<Button>Subscribe to Watch</Button>', '')).toEqual(['Active subscription required to view videos']);
    expect(missingCopy(spec, '<Button>Subscribe to Watch</Button>', "Not shown: 'Active subscription required to view videos'.")).toEqual(
      [],
    );
  });

  it('every string docs/SPEC.md quotes is in the product, or docs/spec-departures.md lists it', () => {
    const spec = fs.readFileSync(path.join(root, 'docs/SPEC.md'), 'utf8');
    const departures = fs.readFileSync(path.join(root, 'docs/spec-departures.md'), 'utf8');
    expect(quotedStrings(spec).filter(isCopy).length).toBeGreaterThan(60);
    expect(missingCopy(spec, productText(), departures)).toEqual([]);
  });
});
