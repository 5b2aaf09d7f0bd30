/**
 * Pure parsing of the upload/edit fields as admins type them (form fields are strings): mm:ss
 * durations, comma-separated tag lists, access levels. Errors name the field. Titles, descriptions,
 * models and labels go through the text policy (@members/ui text.ts, issue 44): members read them.
 */
import { cleanText, TEXT_PROBLEM_MESSAGES, type TextRule, textProblem, VIDEO_LIMITS } from '@members/ui/api/schemas';
import { ACCESS_LEVELS, type AccessLevel, EXCLUSIVE_TO, type ExclusiveTo } from './video.decider.js';

export const UPLOAD_REQUIRED_MESSAGE = 'Please provide at least a title and video file';

export const LIMITS = VIDEO_LIMITS;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** "12:34" → 754; "1:02:03" → 3723; "" → null. */
export function parseDurationText(text: string | null | undefined): Parsed<number | null> {
  const t = (text ?? '').trim();
  if (t === '') return { ok: true, value: null };
  const m = /^(?:(\d{1,3}):)?(\d{1,3}):([0-5]\d)$/.exec(t);
  if (!m) return { ok: false, error: 'Duration must be in mm:ss format (e.g. 12:34)' };
  const [, h, mm, ss] = m;
  return { ok: true, value: Number(h ?? 0) * 3600 + Number(mm) * 60 + Number(ss) };
}

/** Tags or categories from a comma-separated string, a JSON array string or a list: trimmed, de-duplicated. */
export function parseLabels(input: string | string[] | null | undefined, field: string): Parsed<string[]> {
  let items: unknown[] = [];
  if (Array.isArray(input)) items = input.flatMap((s) => splitLabels(s));
  else if (typeof input === 'string') items = splitLabels(input);
  const out: string[] = [];
  for (const raw of items) {
    const label = cleanText(String(raw), SINGLE_LINE);
    if (label === '') continue;
    const problem = textProblem(label, SINGLE_LINE);
    if (problem) return { ok: false, error: `${field}: each entry ${TEXT_PROBLEM_MESSAGES[problem]}` };
    if (label.length > LIMITS.label) return { ok: false, error: `${field}: each entry must be at most ${LIMITS.label} characters` };
    if (!out.some((x) => x.toLowerCase() === label.toLowerCase())) out.push(label);
  }
  if (out.length > LIMITS.labels) return { ok: false, error: `${field}: at most ${LIMITS.labels} entries` };
  return { ok: true, value: out };
}

function splitLabels(s: string): unknown[] {
  const t = s.trim();
  if (t.startsWith('[')) {
    try {
      const parsed = JSON.parse(t);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: fall through to commas
    }
  }
  return t.split(',');
}

export function parseAccessLevel(input: string | null | undefined): Parsed<AccessLevel> {
  const t = (input ?? '').trim().toLowerCase();
  if (t === '') return { ok: true, value: 'premium' };
  if ((ACCESS_LEVELS as readonly string[]).includes(t)) return { ok: true, value: t as AccessLevel };
  return { ok: false, error: 'accessLevel must be one of free, premium, vip' };
}

const SINGLE_LINE: TextRule = { multiLine: false };

/** A typed text field under the text policy: single-line unless `rule` says multi-line (a description). */
export function checkText(value: string | null | undefined, field: string, max: number, rule = SINGLE_LINE): Parsed<string> {
  const t = cleanText(value ?? '', rule);
  const problem = textProblem(t, rule);
  if (problem) return { ok: false, error: `${field} ${TEXT_PROBLEM_MESSAGES[problem]}` };
  if (t.length > max) return { ok: false, error: `${field} must be at most ${max} characters` };
  return { ok: true, value: t };
}

/** `annual` (behind-the-scenes) or empty/`none`/null for none. */
export function parseExclusiveTo(input: string | null | undefined): Parsed<ExclusiveTo> {
  const t = (input ?? '').trim().toLowerCase();
  if (t === '' || t === 'none' || t === 'null') return { ok: true, value: null };
  if ((EXCLUSIVE_TO as readonly string[]).includes(t)) return { ok: true, value: t as ExclusiveTo };
  return { ok: false, error: 'exclusiveTo must be annual (or empty for none)' };
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A release time as typed (ISO 8601 date-time with `Z` or an offset), normalized to UTC
 * (`2026-12-03T08:00:00.000Z`); empty or null: no schedule.
 */
export function parsePublishAt(input: string | null | undefined): Parsed<string | null> {
  const t = (input ?? '').trim();
  if (t === '') return { ok: true, value: null };
  const at = ISO_WITH_OFFSET.test(t) ? Date.parse(t) : Number.NaN;
  if (Number.isNaN(at)) return { ok: false, error: 'publishAt must be an ISO 8601 date-time with an offset (e.g. 2026-12-03T09:00:00Z)' };
  return { ok: true, value: new Date(at).toISOString() };
}
