/**
 * Pure parsing of the upload/edit fields as admins type them (form fields are strings): mm:ss
 * durations, comma-separated tag lists, access levels. Errors name the field.
 */
import { VIDEO_LIMITS } from '@members/ui/api/schemas';
import { ACCESS_LEVELS, type AccessLevel } from './video.decider.js';

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
    const label = String(raw).trim();
    if (label === '') continue;
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

export function checkText(value: string | null | undefined, field: string, max: number): Parsed<string> {
  const t = (value ?? '').trim();
  if (t.length > max) return { ok: false, error: `${field} must be at most ${max} characters` };
  return { ok: true, value: t };
}
