/**
 * The member journey in the three engines members use: Chromium (Blink), Firefox ESR (Gecko, over
 * WebDriver BiDi) and WebKitGTK (WebKit, over WebDriver) against one real server: log in, the
 * catalog, a transcoded video's page, HLS playback through hls.js with the AES key, the quality
 * menu (360p switched to and played, then Auto), the account page, with no console error, no
 * uncaught error and no CSP violation in any. Each engine's steps are timed into
 * artifacts/engines.json (measurements, not assertions). Native HLS (Safari/iOS without MSE) cannot
 * run here: the player's engine choice is unit-tested in src/player/engineChoice.unit.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type TestServer, tmpDir } from '../../api/test/support';
import { SCREENSHOT_DIR } from './browser';
import { type EngineDriver, type JourneyResult, memberJourney } from './engines/journey';
import { type EngineName, itInEachEngine } from './engines/ofThisRun';
import { playerServer } from './playerServer';

const MEMBER = { email: 'engines.viewer@example.test', password: 'member-password-1' };

let server: TestServer;
let videoId: string;
const media = tmpDir('web-e2e-engines-');
const results: (JourneyResult & { totalMs: number })[] = [];

async function journeyIn(start: () => Promise<EngineDriver>): Promise<JourneyResult> {
  const began = Date.now();
  const d = await start();
  try {
    const r = await memberJourney(d, { base: server.url, email: MEMBER.email, password: MEMBER.password, videoId });
    results.push({ ...r, totalMs: Date.now() - began });
    return r;
  } finally {
    await d.close();
  }
}

function expectFullJourney(r: JourneyResult) {
  expect(r.playerEngine).toBe('hls.js');
  // The frame does not grow when the stream's metadata arrives: Play stays under the pointer.
  expect(r.controlsMoved).toBe(0);
  // A free video for an approved member without a subscription: up to 720p.
  expect(r.qualities[0]).toMatch(/^Auto/);
  expect(r.qualities.slice(1)).toEqual(['720p', '480p', '360p']);
  expect(r.hlsRequests.master).toBeGreaterThan(0);
  expect(r.hlsRequests.playlist).toBeGreaterThan(0);
  expect(r.hlsRequests.key).toBeGreaterThan(0);
  expect(r.hlsRequests.segments).toBeGreaterThan(0);
  expect(r.problems).toEqual([]);
  // The collection works in this engine: a deliberate violation and console error were seen.
  expect(r.detects).toEqual({ csp: true, consoleError: true });
}

describe('member journey in three engines', () => {
  beforeAll(async () => {
    ({ server, videoId } = await playerServer({
      media,
      member: { ...MEMBER, firstName: 'Eng', lastName: 'Ines', dateOfBirth: '1990-05-06' },
      clip: { width: 1280, height: 720, seconds: 16, kbps: 1200 },
      video: { title: 'Three Engines', duration: '0:16', accessLevel: 'free' },
    }));
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    fs.rmSync(media, { recursive: true, force: true });
    if (results.length > 0) {
      // Each engine's latest journey: the file runs in two projects, each with its own engines.
      const out = path.resolve(SCREENSHOT_DIR, '..', 'engines.json');
      fs.mkdirSync(path.dirname(out), { recursive: true });
      const earlier: typeof results = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : [];
      const kept = earlier.filter((e) => !results.some((r) => r.engine === e.engine));
      fs.writeFileSync(out, `${JSON.stringify([...kept, ...results], null, 2)}\n`);
      for (const r of results) console.log(`${r.engine}: journey ${r.totalMs} ms (${JSON.stringify(r.steps)})`);
    }
  });

  const titles: Record<EngineName, string> = {
    Chromium: 'Chromium: log in, catalog, video page, HLS with the AES key, quality menu, account page; no error, no CSP violation',
    'Firefox ESR': 'Firefox ESR (WebDriver BiDi): the same journey; no error, no CSP violation',
    WebKitGTK: 'WebKitGTK (WebKitWebDriver, MiniBrowser): the same journey; no error, no CSP violation',
  };
  itInEachEngine(
    (engine) => titles[engine],
    async (start) => {
      expectFullJourney(await journeyIn(start));
    },
  );
});
