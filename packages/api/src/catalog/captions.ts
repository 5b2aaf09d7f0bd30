/**
 * Caption files as the admin uploads them (pure): WebVTT or SRT in, a clean WebVTT out.
 *
 * Parsed by `webvtt-parser` (the W3C validator's parser, errors with line numbers): a file that does
 * not start with `WEBVTT` is read as SRT (its `,` millisecond separators made `.`, a `WEBVTT` header
 * put before it, line numbers mapped back to the file's own). Nothing of the file is trusted: every
 * cue is written again from the parser's tree, keeping only WebVTT's own cue markup (`b`, `i`, `u`,
 * `c` with plain class names, `v` and `lang` with their annotation, `ruby`/`rt`, timestamps); any
 * other tag (`<script>`, `<font>`, `<img>`) is dropped with its text kept, and the text is escaped
 * again, so nothing but WebVTT markup is ever served. STYLE and NOTE blocks and REGION definition
 * blocks are accepted and dropped (the parser does not know REGION blocks: they are blanked, line for
 * line, before it reads the file), as is a cue's `region:` setting. Cues starting after the video's
 * end are dropped, those running past it end there.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface TreeNode {
  type: 'object' | 'text' | 'timestamp';
  name?: string;
  classes?: string[];
  value?: string | number;
  children?: TreeNode[];
}
interface ParsedCue {
  id: string;
  startTime: number;
  endTime: number;
  direction: string;
  snapToLines: boolean;
  linePosition: number | 'auto';
  lineAlign: string;
  textPosition: number | 'auto';
  positionAlign: string;
  size: number;
  alignment: string;
  tree: TreeNode;
}
interface ParseResult {
  cues: ParsedCue[];
  errors: { message: string; line: number; col?: number }[];
}
const { WebVTTParser } = require('webvtt-parser') as {
  WebVTTParser: new (entities?: Record<string, string>) => { parse(input: string, mode?: string): ParseResult };
};
/** HTML's named character references, as the specification reads them (`&amp;`, `&eacute;`). */
const ENTITIES = require('webvtt-parser/html-entities.json') as Record<string, string>;

/** The largest caption file accepted (bytes). */
export const MAX_CAPTION_BYTES = 1024 * 1024;

export type CaptionFormat = 'vtt' | 'srt';

export interface CaptionParseError {
  /** The line of the uploaded file (1-based) where the parser stopped. */
  line: number;
  message: string;
}

export type CaptionParse = { ok: true; vtt: string; cues: number; format: CaptionFormat } | { ok: false; error: CaptionParseError };

/**
 * What breaks a cue's structure (its timing line, the signature): the cue is lost, so the file is
 * refused. Errors in cue settings (ignored) or in cue text (rewritten below) are not fatal.
 */
const STRUCTURAL = [
  'No valid signature',
  'Cue identifier',
  'timestamp',
  'Timestamp',
  'time unit separator',
  'two digits',
  'No seconds found',
  'decimal separator',
  'Milliseconds',
  'more than 59',
];
const isStructural = (message: string) =>
  // message-text: the WebVTT parser's errors carry no code, only their words
  STRUCTURAL.some((s) => message.includes(s)) &&
  // message-text: (the same parser's words) a cue out of order is rewritten, not refused
  !message.startsWith('Start timestamp is not greater than or equal to start timestamp of previous cue');

const SRT_TIMING = /^(\s*\d{1,3}:\d{2}:\d{2})[,.](\d{1,3})(\s*-->\s*)(\d{1,3}:\d{2}:\d{2})[,.](\d{1,3})(.*)$/;

/** SRT as WebVTT text, line for line after the two header lines (so line numbers map back by -2). */
export function srtToVttText(srt: string): string {
  const lines = srt.replace(/^\ufeff/, '').split(/\r\n|\r|\n/);
  const out = lines.map((line) => {
    const m = SRT_TIMING.exec(line);
    if (!m) return line;
    // SRT allows 1- or 2-digit milliseconds and hours beyond two digits; WebVTT wants three and at least two.
    const ms = (s: string) => s.padEnd(3, '0');
    const hh = (s: string) => s.trim().padStart(8, '0');
    return `${hh(m[1] as string)}.${ms(m[2] as string)} --> ${hh(m[4] as string)}.${ms(m[5] as string)}`;
  });
  return `WEBVTT\n\n${out.join('\n')}`;
}

const CLASS = /^[A-Za-z0-9_-]{1,32}$/;
const LANG_TAG = /^[A-Za-z0-9-]{1,35}$/;

/**
 * The WebVTT text with its REGION definition blocks blanked, line for line (so the parser's line
 * numbers stay the file's). WebVTT allows them in the header only, before the first cue: a block
 * there whose first line is `REGION` and that has no timing line (`-->`) is one.
 */
export function withoutRegionBlocks(vtt: string): string {
  const lines = vtt.split(/\r\n|\r|\n/);
  let i = 1; // after the WEBVTT line
  while (i < lines.length) {
    while (i < lines.length && (lines[i] as string).trim() === '') i++;
    const start = i;
    while (i < lines.length && (lines[i] as string).trim() !== '') i++;
    const block = lines.slice(start, i);
    if (block.some((l) => l.includes('-->'))) break; // the first cue: the header is over
    if (/^REGION[ \t]*$/.test(block[0] ?? '')) for (let j = start; j < i; j++) lines[j] = '';
  }
  return lines.join('\n');
}

/** Text as WebVTT cue text: `&`, `<`, `>` escaped; `-->` cannot survive since `>` is escaped. */
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** An annotation (`<v Name>`): escaped, on one line. */
const escapeAnnotation = (s: string) => escapeText(s.replace(/[\r\n]+/g, ' ').trim()).slice(0, 200);

export function formatTimestamp(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

const KEPT = new Set(['b', 'i', 'u', 'c', 'v', 'lang', 'ruby', 'rt']);

/** A cue's text written again from the parser's tree, with WebVTT's own markup only. */
export function serializeCueTree(node: TreeNode): string {
  let out = '';
  for (const child of node.children ?? []) {
    if (child.type === 'text') out += escapeText(String(child.value ?? ''));
    else if (child.type === 'timestamp') out += `<${formatTimestamp(Number(child.value))}>`;
    else if (child.type === 'object' && child.name && KEPT.has(child.name)) {
      const classes = (child.classes ?? []).filter((c) => CLASS.test(c));
      const name = child.name;
      let annotation = '';
      if (name === 'v' && child.value) annotation = ` ${escapeAnnotation(String(child.value))}`;
      if (name === 'lang' && typeof child.value === 'string' && LANG_TAG.test(child.value)) annotation = ` ${child.value}`;
      out += `<${[name, ...classes].join('.')}${annotation}>${serializeCueTree(child)}</${name}>`;
    } else out += serializeCueTree(child);
  }
  return out;
}

/** The cue's settings that differ from the defaults, as a timing line's tail. */
function settingsOf(cue: ParsedCue): string {
  const parts: string[] = [];
  if (cue.direction === 'vertical') parts.push('vertical:rl');
  else if (cue.direction === 'vertical-lr') parts.push('vertical:lr');
  if (typeof cue.linePosition === 'number' && Number.isFinite(cue.linePosition))
    parts.push(`line:${cue.snapToLines ? Math.trunc(cue.linePosition) : `${cue.linePosition}%`}`);
  if (typeof cue.textPosition === 'number' && Number.isFinite(cue.textPosition)) parts.push(`position:${cue.textPosition}%`);
  if (Number.isFinite(cue.size) && cue.size !== 100) parts.push(`size:${cue.size}%`);
  if (['start', 'end', 'left', 'right'].includes(cue.alignment)) parts.push(`align:${cue.alignment}`);
  return parts.length ? ` ${parts.join(' ')}` : '';
}

/** A cue identifier kept only when harmless (one line, no `-->`). */
const safeId = (id: string) => (id && !id.includes('-->') && id.length <= 100 && !/[\r\n]/.test(id) ? id : '');

/**
 * Parses an uploaded caption file and writes it again as clean WebVTT.
 * @param durationSeconds the video's duration: cues past it are clipped or dropped.
 */
export function parseCaptionFile(input: string, durationSeconds: number): CaptionParse {
  const text = input.replace(/^\ufeff/, '');
  const format: CaptionFormat = /^WEBVTT(?:$|[ \t\r\n])/.test(text) ? 'vtt' : 'srt';
  const vttText = format === 'vtt' ? withoutRegionBlocks(text) : srtToVttText(text);
  const lineOffset = format === 'vtt' ? 0 : 2;
  // "metadata" mode: cue text errors are not reported (the text is rewritten below whatever it held).
  const parsed = new WebVTTParser(ENTITIES).parse(vttText, 'metadata');
  const fatal = parsed.errors.find((e) => isStructural(e.message));
  if (fatal) {
    const what = format === 'vtt' ? 'WebVTT' : 'SRT or WebVTT';
    return {
      ok: false,
      error: {
        line: Math.max(1, fatal.line - lineOffset),
        message: `Not a valid ${what} file: line ${Math.max(1, fatal.line - lineOffset)}: ${fatal.message}`,
      },
    };
  }
  if (parsed.cues.length === 0) {
    const lines = text.split(/\r\n|\r|\n/).length;
    return { ok: false, error: { line: lines, message: `Not a valid SRT or WebVTT file: line ${lines}: no cue found` } };
  }
  const end = Math.max(0, durationSeconds);
  const blocks: string[] = [];
  for (const cue of parsed.cues) {
    if (cue.startTime >= end) continue;
    const endTime = Math.min(cue.endTime, end);
    if (endTime <= cue.startTime) continue;
    const body = serializeCueTree(cue.tree)
      .replace(/\n{2,}/g, '\n')
      .trim();
    if (!body) continue;
    const id = safeId(cue.id);
    blocks.push(`${id ? `${id}\n` : ''}${formatTimestamp(cue.startTime)} --> ${formatTimestamp(endTime)}${settingsOf(cue)}\n${body}`);
  }
  return { ok: true, vtt: `WEBVTT\n\n${blocks.join('\n\n')}\n`, cues: blocks.length, format };
}

/** A BCP 47 tag in its canonical case (`pt-br` → `pt-BR`), or null when it is not one. */
export function canonicalLanguage(tag: string): string | null {
  if (!/^[A-Za-z0-9-]{2,35}$/.test(tag)) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && /^[A-Za-z0-9-]{2,35}$/.test(canonical) ? canonical : null;
  } catch {
    return null;
  }
}

/** The language's name in itself (`pt-BR` → "português (Brasil)"), first letter capitalised; the tag when unknown. */
export function languageLabel(language: string): string {
  try {
    const name = new Intl.DisplayNames([language], { type: 'language', fallback: 'none' }).of(language);
    if (!name) return language;
    return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
  } catch {
    return language;
  }
}
