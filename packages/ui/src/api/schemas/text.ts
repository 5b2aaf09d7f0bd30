/**
 * The text policy of every field a person types that others read (issue 44): names, chat messages,
 * custom request descriptions and reasons, caption labels (and staff display names). Applied at the
 * API's route contract, so every client gets it:
 * - Unicode NFC: one spelling of each character, so two names that look the same compare the same;
 * - control characters refused: C0 (U+0000–U+001F), DEL and C1 (U+007F–U+009F), ESC sequences
 *   included; a multi-line field keeps its line breaks (CR LF, CR, U+2028 and U+2029 become LF) and tabs;
 * - bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) refused: they
 *   make text read in another order than it is stored ("abc\u202Egnp.exe" shows as "abcexe.png");
 * - zero-width space, word joiner and byte-order mark (U+200B, U+2060, U+FEFF) stripped; the
 *   joiners (U+200C, U+200D) stay, as scripts and emoji need them;
 * - trimmed, and a field left with nothing visible (spaces, joiners, fillers) is empty: the field's
 *   own "cannot be empty" message refuses it.
 * Lone surrogates (not text) are refused too. The functions are pure; the zod builders apply them.
 * One rule per field, the same for every field (refuse controls and direction characters, strip
 * zero-width spaces); what differs is single- or multi-line:
 * - single-line (`singleLineText`): registration and profile names, staff display names, passkey
 *   names, caption labels, live show titles, video titles, models and tags/categories;
 * - multi-line (`multiLineText`): 1:1 chat and live show chat messages, custom request descriptions
 *   and decline reasons, live show and video descriptions, rejection, suspension and erasure reasons,
 *   a payment's rejection and verification-override reasons.
 * Multipart forms (a video upload, a caption file's label) apply `cleanText` and `textProblem` in the
 * API's catalog (videoInput.ts, captions.service.ts). Stored text from before the policy is shown through `displayText` or isolated
 * markup (dir="auto", <bdi>).
 * Anchor: Unicode Technical Report #36 (Unicode Security Considerations), §2.2 and §3.
 */
import { z } from 'zod';

export interface TextRule {
  /** Line breaks (and tabs) allowed: chat messages, descriptions. Names and labels are single-line. */
  multiLine: boolean;
}

export type TextProblem = 'control' | 'bidi' | 'encoding';

/** What each problem is called in a refusal (after the field's name, as the other messages are). */
export const TEXT_PROBLEM_MESSAGES: Record<TextProblem, string> = {
  control: 'must not contain control characters',
  bidi: 'must not contain text direction override characters',
  encoding: 'must be valid Unicode text',
};

const STRIPPED = /[\u200B\u2060\uFEFF]/g;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
/** C0, DEL and C1 are exactly Unicode's Cc. */
const CONTROL_SINGLE = /[\p{Cc}\u2028\u2029]/u;
const CONTROL_MULTI = /(?![\t\n])\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;
/** Characters that show nothing: with whitespace, all a field may not consist of. */
const INVISIBLE = /\u034F|[\s\u00AD\u115F\u1160\u180E\u200B-\u200F\u2060-\u2064\u3164\uFFA0\uFEFF\u2800]/gu;

/** The text as stored: NFC, line breaks unified (multi-line), zero-width spaces stripped, trimmed. */
export function cleanText(raw: string, rule: TextRule): string {
  let t = raw.normalize('NFC').replace(STRIPPED, '');
  if (rule.multiLine) t = t.replace(/\r\n?|[\u2028\u2029]/g, '\n');
  return t.trim();
}

/** Why the (cleaned) text may not be stored, or null. */
export function textProblem(text: string, rule: TextRule): TextProblem | null {
  if (LONE_SURROGATE.test(text)) return 'encoding';
  if ((rule.multiLine ? CONTROL_MULTI : CONTROL_SINGLE).test(text)) return 'control';
  if (BIDI.test(text)) return 'bidi';
  return null;
}

/** Whether nothing of the text would show (empty, or only spaces, joiners and fillers). */
export const showsNothing = (text: string): boolean => text.replace(INVISIBLE, '').length === 0;

/** What a caller of the builders names: the bounds and the field's own messages for them. */
export interface TextBounds {
  /** 0: may be empty (an optional field); 1: must show something. */
  min: 0 | 1;
  max: number;
  /** A missing or non-string value. */
  required?: string;
  /** Empty after cleaning, or nothing visible (with `min: 1`). */
  empty?: string;
  /** Longer than `max` characters once cleaned. */
  tooLong?: string;
}

function policyText(rule: TextRule, b: TextBounds) {
  const tooLong = b.tooLong ?? `must be at most ${b.max} characters`;
  const empty = b.empty ?? 'must not be empty';
  return z
    .string(b.required ? { error: b.required } : undefined)
    .overwrite((s) => cleanText(s, rule))
    .min(b.min, empty)
    .max(b.max, tooLong)
    .superRefine((s, ctx) => {
      const problem = textProblem(s, rule);
      if (problem) ctx.addIssue({ code: 'custom', message: TEXT_PROBLEM_MESSAGES[problem] });
      else if (b.min === 1 && s.length > 0 && showsNothing(s)) ctx.addIssue({ code: 'custom', message: empty });
    });
}

/** A one-line field (a name, a label): no line breaks, no control or direction characters. */
export const singleLineText = (b: TextBounds) => policyText({ multiLine: false }, b);

/** A multi-line field (a message, a description): line breaks and tabs allowed, nothing else invisible. */
export const multiLineText = (b: TextBounds) => policyText({ multiLine: true }, b);

const BIDI_ALL = /[\u202A-\u202E\u2066-\u2069]/g;
const CONTROLS_ALL = /[\p{Cc}\u2028\u2029]/gu;

/**
 * Stored text (perhaps from before this policy) made safe to show where markup cannot isolate it:
 * an OS notification, a terminal, a log line. NFC; direction overrides and isolates and zero-width
 * spaces removed; every control character (ESC included) and line break a space, except the line
 * breaks of multi-line text; runs of spaces that leaves made one.
 */
export function displayText(text: string, rule: TextRule): string {
  const t = text.normalize('NFC').replace(STRIPPED, '').replace(BIDI_ALL, '');
  const lines = rule.multiLine ? t.split(/\r\n?|\n|[\u2028\u2029]/) : [t];
  return lines
    .map((l) => l.replace(CONTROLS_ALL, ' ').replace(/ {2,}/g, ' ').trim())
    .join('\n')
    .trim();
}
