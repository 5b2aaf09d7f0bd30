/** The text policy (issue 44, finding 1): the outside tester's payloads, and what ordinary text keeps. */
import { describe, expect, it } from 'vitest';
import { cleanText, displayText, multiLineText, showsNothing, singleLineText, textProblem } from './text';

const single = { multiLine: false };
const multi = { multiLine: true };
const name = singleLineText({ min: 1, max: 100, empty: 'must not be empty' });
const message = multiLineText({ min: 1, max: 2000, required: 'is required', empty: 'Message cannot be empty' });
const messagesOf = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues.map((i) => i.message) ?? [];

describe('the text policy', () => {
  it('refuses control characters: NUL, BEL, ESC sequences and header injection in a message; any line break in a name', () => {
    expect(textProblem(cleanText('hi\u0000\u0007\u001b[31mred\u001b[0m\r\nX-Injected: yes', multi), multi)).toBe('control');
    expect(textProblem('a\u0085b', multi)).toBe('control');
    expect(textProblem('a\u007fb', multi)).toBe('control');
    expect(textProblem('Admin\u0007', single)).toBe('control');
    expect(textProblem('Ann\nX-Injected: yes', single)).toBe('control');
    expect(textProblem('Ann\tLee', single)).toBe('control');
    expect(textProblem('Ann\u2028Lee', single)).toBe('control');
    expect(messagesOf(message.safeParse('hi\u001b[31mred'))).toEqual(['must not contain control characters']);
  });

  it('refuses direction overrides and isolates', () => {
    for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect([c.codePointAt(0), textProblem(`abc${c}gnp.exe`, single)]).toEqual([c.codePointAt(0), 'bidi']);
      expect(textProblem(`abc${c}gnp.exe`, multi)).toBe('bidi');
    }
    expect(messagesOf(name.safeParse('Admin\u202e\u0007'))).toEqual(['must not contain control characters']);
    expect(messagesOf(name.safeParse('abc\u202egnp.exe\u202c'))).toEqual(['must not contain text direction override characters']);
  });

  it('strips zero-width spaces; a field of only invisible characters is empty, with the field’s own message', () => {
    expect(cleanText('An\u200Bna\uFEFF', single)).toBe('Anna');
    expect(message.safeParse('\u200B\u200B\u200B').error?.issues.map((i) => i.message)).toEqual(['Message cannot be empty']);
    expect(messagesOf(message.safeParse(' \u200D\u200C\u3164 '))).toEqual(['Message cannot be empty']);
    expect(showsNothing('\u2060\u00AD ')).toBe(true);
    expect(messagesOf(name.safeParse('\u200B'))).toEqual(['must not be empty']);
    expect(messagesOf(message.safeParse(undefined))).toEqual(['is required']);
  });

  it('keeps ordinary text: NFC, line breaks unified in a message, joiners in scripts and emoji, right-to-left letters', () => {
    expect(message.parse('  Hello\r\nthere\rand\u2028more\tstill  ')).toBe('Hello\nthere\nand\nmore\tstill');
    expect(name.parse('Zoe\u0308')).toBe('Zoë');
    expect(name.parse('Zoe\u0308')).toBe('Zo\u00eb');
    expect(name.parse('שרה')).toBe('שרה');
    expect(name.parse('میخواهم')).toBe('میخواهم');
    expect(name.parse('می\u200Cخواهم')).toBe('می\u200Cخواهم');
    expect(message.parse('👨\u200D👩\u200D👧 family')).toBe('👨\u200D👩\u200D👧 family');
  });

  it('counts the length of the cleaned text and refuses lone surrogates', () => {
    expect(messagesOf(name.safeParse('x'.repeat(101)))).toEqual(['must be at most 100 characters']);
    expect(name.parse(`${'x'.repeat(100)}\u200B\u200B`)).toBe('x'.repeat(100));
    expect(textProblem('a\uD800b', single)).toBe('encoding');
  });

  it('makes stored text safe to show where markup cannot isolate it (a notification, a terminal)', () => {
    expect(displayText('Admin\u202e\u0007', single)).toBe('Admin');
    expect(displayText('hi\u0000\u0007\u001b[31mred\u001b[0m\r\nX-Injected: yes', single)).toBe('hi [31mred [0m X-Injected: yes');
    expect(displayText('abc\u202egnp.exe\u202c', multi)).toBe('abcgnp.exe');
    expect(displayText('line one\r\nline\u001b two\u200b', multi)).toBe('line one\nline two');
    expect(displayText('Zoe\u0308', single)).toBe('Zo\u00eb');
  });
});
