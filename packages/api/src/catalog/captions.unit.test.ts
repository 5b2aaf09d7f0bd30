import { describe, expect, it } from 'vitest';
import { canonicalLanguage, formatTimestamp, languageLabel, parseCaptionFile, srtToVttText } from './captions.js';

const ok = (input: string, duration = 60) => {
  const r = parseCaptionFile(input, duration);
  if (!r.ok) throw new Error(r.error.message);
  return r;
};

describe('caption files', () => {
  it('keeps WebVTT cues, their timing and settings', () => {
    const r = ok('WEBVTT\n\nintro\n00:00:01.000 --> 00:00:03.500 align:start line:10%\nHello <b>bold</b> <i>it</i> <u>u</u>\n');
    expect(r.format).toBe('vtt');
    expect(r.vtt).toBe('WEBVTT\n\nintro\n00:00:01.000 --> 00:00:03.500 line:10% align:start\nHello <b>bold</b> <i>it</i> <u>u</u>\n');
  });

  it('keeps voice, class, lang, ruby and timestamps; drops every other tag and escapes the text', () => {
    const r = ok(
      'WEBVTT\n\n00:00:01.000 --> 00:00:05.000\n<v.loud Bob>Hi</v> <c.red.x>c</c> <lang pt-BR>olá</lang> <ruby>漢<rt>kan</rt></ruby> <00:00:02.000>t ' +
        '<script>alert(1)</script> <img src=x onerror=alert(1)> <font color="red">f</font> a &amp; b &lt;tag&gt;\n',
    );
    const cue = r.vtt.split('\n')[3];
    expect(cue).toBe(
      '<v.loud Bob>Hi</v> <c.red.x>c</c> <lang pt-BR>olá</lang> <ruby>漢<rt>kan</rt></ruby> <00:00:02.000>t alert(1)  f a &amp; b &lt;tag&gt;',
    );
    expect(r.vtt).not.toMatch(/<script|<img|<font|onerror/);
  });

  it('converts SRT to WebVTT (commas, short milliseconds, <font> dropped)', () => {
    const r = ok(
      '\ufeff1\r\n00:00:01,000 --> 00:00:02,5\r\n<font color="red">Hello</font> <i>world</i>\r\n\r\n2\r\n0:00:03,000 --> 0:00:04,000\r\nBye\r\n',
    );
    expect(r.format).toBe('srt');
    expect(r.vtt).toBe('WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\nHello <i>world</i>\n\n2\n00:00:03.000 --> 00:00:04.000\nBye\n');
    expect(srtToVttText('1\n00:00:01,000 --> 00:00:02,000\nx').split('\n')).toHaveLength(5);
  });

  it("clips cues at the video's end and drops those after it", () => {
    const r = ok(
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nin\n\n00:00:04.000 --> 00:00:09.000\nacross\n\n00:00:12.000 --> 00:00:13.000\nafter\n',
      5,
    );
    expect(r.cues).toBe(2);
    expect(r.vtt).toContain('00:00:04.000 --> 00:00:05.000\nacross');
    expect(r.vtt).not.toContain('after');
  });

  it('refuses a file that is neither, naming the line of the file', () => {
    const notCaptions = parseCaptionFile('hello\nworld\n', 60);
    expect(notCaptions).toMatchObject({ ok: false, error: { line: 2 } });
    const badSrt = parseCaptionFile('1\n00:00:01,000 --> 00:00:02,500\nok\n\n2\n00:00:0x,000 --> 00:00:04,000\nBad\n', 60);
    expect(badSrt).toMatchObject({ ok: false, error: { line: 6 } });
    if (!badSrt.ok) expect(badSrt.error.message).toMatch(/^Not a valid SRT or WebVTT file: line 6: /);
    const badVtt = parseCaptionFile('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\n00:00:03.000 --> 00:00:0.000\nbad\n', 60);
    expect(badVtt).toMatchObject({ ok: false, error: { line: 6 } });
    expect(parseCaptionFile('WEBVTT\n', 60)).toMatchObject({ ok: false, error: { line: 2 } });
    expect(parseCaptionFile('\u0089PNG\r\n\u001a\n\u0000\u0000', 60).ok).toBe(false);
  });

  it('accepts REGION blocks as WebVTT allows them (in the header) and drops them, with the cues’ region settings', () => {
    const file = [
      'WEBVTT',
      '',
      'REGION',
      'id:fred',
      'width:40%',
      'lines:3',
      'regionanchor:0%,100%',
      'viewportanchor:10%,90%',
      'scroll:up',
      '',
      'REGION',
      'id:<script>alert(1)</script>',
      '',
      'STYLE',
      '::cue { color: red }',
      '',
      '00:00:00.000 --> 00:00:01.000 region:fred align:left',
      '<v Fred>Hi, my name is <script>Fred</script>',
      '',
      'REGION',
      '00:00:01.000 --> 00:00:02.000',
      'a cue whose identifier is REGION',
      '',
    ].join('\r\n');
    const r = ok(file);
    expect(r.cues).toBe(2);
    expect(r.vtt).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:01.000 align:left\n<v Fred>Hi, my name is Fred</v>\n\nREGION\n00:00:01.000 --> 00:00:02.000\na cue whose identifier is REGION\n',
    );
    // A broken cue after a REGION block is still named by its own line.
    const bad = parseCaptionFile('WEBVTT\n\nREGION\nid:a\n\n00:00:01.000 --> 00:00:0.000\nbad\n', 60);
    expect(bad).toMatchObject({ ok: false, error: { line: 6 } });
  });

  it('canonical BCP 47 tags and their own names', () => {
    expect(canonicalLanguage('pt-br')).toBe('pt-BR');
    expect(canonicalLanguage('en')).toBe('en');
    expect(canonicalLanguage('en_US')).toBeNull();
    expect(canonicalLanguage('not a tag')).toBeNull();
    expect(canonicalLanguage('../x')).toBeNull();
    expect(languageLabel('pt-BR')).toBe('Português (Brasil)');
    expect(languageLabel('de')).toBe('Deutsch');
    expect(formatTimestamp(3725.5)).toBe('01:02:05.500');
  });
});
