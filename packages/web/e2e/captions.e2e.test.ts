/**
 * Captions in the three engines members use (Chromium, Firefox ESR over WebDriver BiDi, WebKitGTK
 * over WebDriver; the drivers of engines.e2e.test.ts), against one real server: an admin uploads an
 * English WebVTT and a German SRT to a transcoded video through the API; a member opens the player,
 * picks "English" in the CC menu and the cue of the moment is the active cue of the showing text
 * track (the first cue before 3 s, the second after), then the menu switches to "Deutsch" and the
 * German cue shows; the choice is remembered in localStorage. No console error, uncaught error or
 * CSP violation in any engine.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { adminToken, type TestServer, tmpDir } from '../../api/test/support';
import { type EngineDriver, PROBE, waitFor } from './engines/journey';
import { type EngineName, itInEachEngine } from './engines/ofThisRun';
import { playerServer } from './playerServer';

const MEMBER = { email: 'captions.viewer@example.test', password: 'member-password-1' };
const VIDEO = '[data-testid=secure-video]';
const EN = 'WEBVTT\n\n00:00:00.300 --> 00:00:03.000\nFirst <b>line</b>\n\n00:00:03.000 --> 00:00:07.800\nSecond line\n';
const DE_SRT = '1\r\n00:00:00,300 --> 00:00:03,000\r\nErste Zeile\r\n\r\n2\r\n00:00:03,000 --> 00:00:07,800\r\nZweite Zeile\r\n';

let server: TestServer;
let videoId: string;
const media = tmpDir('web-e2e-captions-');

/** The text of the showing track's active cues (`language|text`), or '' when none. */
const ACTIVE_CUES = `const v = document.querySelector('${VIDEO}');
  const showing = [...v.textTracks].filter((t) => t.mode === 'showing');
  if (showing.length !== 1 || !showing[0].activeCues) return '';
  return showing[0].language + '|' + [...showing[0].activeCues].map((c) => c.text).join(' / ');`;

/** Opens the CC menu with a click on its button (once more if the first click landed before the player settled). */
async function openMenu(d: EngineDriver): Promise<void> {
  const open = "return document.querySelector('button[aria-label=Captions]').getAttribute('aria-expanded') === 'true'";
  for (let i = 0; i < 2; i++) {
    await d.click('//button[@aria-label="Captions"]');
    if (await waitFor(d, 'the captions menu', open, undefined, 5_000).catch(() => false)) return;
  }
  await waitFor(d, 'the captions menu', open);
}

async function captionsJourney(d: EngineDriver): Promise<string[]> {
  const probe = async () => {
    if (d.probeAfterLoad) await d.evaluate(PROBE);
  };
  await d.goto(`${server.url}/login`);
  await d.evaluate("localStorage.setItem('ageVerified', 'true'); localStorage.removeItem('members.captions')");
  await d.goto(`${server.url}/login`);
  await probe();
  await waitFor(d, 'the login form', "return !!document.querySelector('input[name=email]')");
  await d.type('input[name=email]', MEMBER.email);
  await d.type('input[name=password]', MEMBER.password);
  await d.click('//form//button[@type="submit"]');
  const landed = await waitFor<string>(d, 'the redirect after login', "return location.pathname !== '/login' && location.pathname");
  // In-app navigation from the catalog (a full load while the page's lazy modules load would abort them).
  if (landed !== '/videos') {
    await d.goto(`${server.url}/videos`);
    await probe();
  }
  const card = `a[href="/videos/${videoId}"]`;
  await waitFor(d, 'the video in the catalog', `return !!document.querySelector(${JSON.stringify(card)})`);
  await d.click(card);
  await waitFor(d, 'the video page', `return location.pathname === '/videos/${videoId}'`);
  await waitFor(d, 'Watch Now', `return [...document.querySelectorAll('button')].some((b) => /Watch Now/.test(b.textContent))`);
  await d.click('//button[contains(., "Watch Now")]');
  await waitFor(d, "the player's engine", `return document.querySelector('${VIDEO}')?.dataset.engine`);

  // Off by default; the CC menu lists Off and both tracks by their labels.
  expect(await d.evaluate<string>(`return document.querySelector('button[aria-label=Captions]').dataset.caption`)).toBe('off');
  await openMenu(d);
  const items = await waitFor<string[]>(
    d,
    'the captions menu',
    "const m = document.querySelector('[role=menu][aria-label=Captions]'); return m && [...m.querySelectorAll('[role=menuitemradio]')].map((b) => b.textContent + (b.getAttribute('aria-checked') === 'true' ? '*' : ''))",
  );
  expect(items).toEqual(['Off*', 'Deutsch', 'English']);
  await d.click('//div[@role="menu"]//button[.="English"]');

  // The cue of the moment shows while the video plays: the first before 3 s.
  await d.click('//button[@aria-label="Play"]');
  await waitFor(d, 'playback past 0.8 s', `return document.querySelector('${VIDEO}').currentTime > 0.8`);
  await waitFor(d, 'the first English cue', `${ACTIVE_CUES.replace(/\n/g, ' ')}`, undefined, 20_000).then((t) =>
    expect(['en|First <b>line</b>', 'en|Second line']).toContain(t),
  );
  await d.click('//button[@aria-label="Pause"]');
  await d.evaluate(`document.querySelector('${VIDEO}').currentTime = 1.5`);
  // The cue's text as the file has it (VTTCue.text keeps WebVTT's markup; the engine renders <b> bold).
  await waitFor(d, 'the first cue at 1.5 s', `return (function () { ${ACTIVE_CUES} })() === 'en|First <b>line</b>'`);
  await d.evaluate(`document.querySelector('${VIDEO}').currentTime = 5`);
  await waitFor(d, 'the second cue at 5 s', `return (function () { ${ACTIVE_CUES} })() === 'en|Second line'`);

  // The menu switches languages (the SRT arrived as WebVTT) and the choice is remembered.
  await openMenu(d);
  await d.click('//div[@role="menu"]//button[.="Deutsch"]');
  await d.evaluate(`document.querySelector('${VIDEO}').currentTime = 1.4`);
  await waitFor(d, 'the German cue at 1.4 s', `return (function () { ${ACTIVE_CUES} })() === 'de|Erste Zeile'`);
  expect(await d.evaluate<string>("return localStorage.getItem('members.captions')")).toBe('de');
  expect(await d.evaluate<string>(`return document.querySelector('button[aria-label=Captions]').dataset.caption`)).toBe('de');
  await probe();
  return [...d.problems(), ...(await d.evaluate<string[]>("return JSON.parse(sessionStorage.getItem('__engineProbe') || '[]')"))];
}

async function runIn(start: () => Promise<EngineDriver>): Promise<string[]> {
  const d = await start();
  try {
    return await captionsJourney(d);
  } finally {
    await d.close();
  }
}

describe('captions in three engines', () => {
  beforeAll(async () => {
    ({ server, videoId } = await playerServer({
      media,
      member: { ...MEMBER, firstName: 'Cap', lastName: 'Tions', dateOfBirth: '1990-05-06' },
      clip: { width: 640, height: 360, seconds: 8, kbps: 500 },
      video: { title: 'Captioned', duration: '0:08', accessLevel: 'free' },
    }));
    // Added after the transcode: the master playlist and the stream list them without a new one.
    const token = await adminToken(server);
    for (const [language, name, text] of [
      ['en', 'clip.en.vtt', EN],
      ['de', 'clip.de.srt', DE_SRT],
    ] as const) {
      const form = new FormData();
      form.append('language', language);
      form.append('file', new Blob([text]), name);
      const res = await fetch(`${server.url}/api/admin/videos/${videoId}/captions`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${token}` },
      });
      if (res.status !== 201) throw new Error(`caption upload: ${res.status} ${await res.text()}`);
    }
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    fs.rmSync(media, { recursive: true, force: true });
  });

  const titles: Record<EngineName, string> = {
    Chromium: 'Chromium: the CC menu shows the cue of the moment and switches languages',
    'Firefox ESR': 'Firefox ESR: the same',
    WebKitGTK: 'WebKitGTK: the same',
  };
  itInEachEngine(
    (engine) => titles[engine],
    async (start) => {
      expect(await runIn(start)).toEqual([]);
    },
    120_000,
  );
});
