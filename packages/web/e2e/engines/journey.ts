/**
 * The member journey every engine runs (Chromium, Firefox ESR, WebKitGTK), written once against a
 * small driver interface so the three automation protocols (Playwright's CDP, WebDriver BiDi,
 * classic WebDriver) run the same steps: log in, the catalog, a video page, HLS playback through
 * hls.js with the AES key, the quality menu, the account page. Problems are collected per engine:
 * console errors, uncaught errors and Content-Security-Policy violations; the test asserts none.
 */

/** What a journey needs from a browser. Selectors starting with `//` are XPath, others CSS. */
export interface EngineDriver {
  readonly name: string;
  goto(url: string): Promise<void>;
  type(selector: string, text: string): Promise<void>;
  click(selector: string): Promise<void>;
  /** Picks the first `<option>` of a `<select>` whose visible text starts with `label`, as a user does. */
  selectOption(select: string, label: string): Promise<void>;
  /** Runs `body` (a function body; `arg` is its argument) in the page and returns its result. */
  evaluate<T>(body: string, arg?: unknown): Promise<T>;
  /**
   * Problems the protocol reports itself (console errors, uncaught errors, CSP violations seen
   * from the first byte of each document). WebDriver classic has no such channel: see PROBE.
   */
  problems(): string[];
  /** Whether the page's own probe must be installed after each full navigation (no preload scripts). */
  readonly probeAfterLoad: boolean;
  close(): Promise<void>;
}

/**
 * Installed in each document (before the page's scripts where the protocol has preload scripts,
 * else right after load): records CSP violations, uncaught errors, unhandled rejections and
 * `console.error` calls in sessionStorage, which outlives the tab's navigations.
 */
export const PROBE = `(() => {
  if (window.__engineProbe) return;
  window.__engineProbe = true;
  const record = (t) => {
    try {
      const all = JSON.parse(sessionStorage.getItem('__engineProbe') || '[]');
      all.push(location.pathname + ': ' + t);
      sessionStorage.setItem('__engineProbe', JSON.stringify(all));
    } catch {}
  };
  document.addEventListener('securitypolicyviolation', (e) =>
    record('CSP ' + e.effectiveDirective + ' blocked ' + (e.blockedURI || 'inline') + ' (' + e.sourceFile + ':' + e.lineNumber + ')'));
  window.addEventListener('error', (e) => record('error: ' + e.message));
  window.addEventListener('unhandledrejection', (e) => record('unhandled rejection: ' + String(e.reason)));
  // The media element's own story (not a problem: read only when a wait times out), so a stall
  // says whether Play was aborted, refused, or never reached the element.
  const media = (e) => {
    try {
      const log = JSON.parse(sessionStorage.getItem('__mediaLog') || '[]');
      const t = e.target;
      log.push(e.type + (t.tagName && t.tagName !== 'VIDEO' ? ' <' + t.tagName.toLowerCase() + ' ' + (t.currentSrc || t.src || '') + '>' : '') + (e.detail && e.detail.details ? ' ' + e.detail.details : '') + ' @' + (t.currentTime ?? 0).toFixed(2) + ' rs' + t.readyState + ' ns' + t.networkState);
      sessionStorage.setItem('__mediaLog', JSON.stringify(log.slice(-40)));
    } catch {}
  };
  for (const type of ['loadstart', 'emptied', 'abort', 'play', 'playing', 'pause', 'waiting', 'canplay', 'stalled', 'error', 'streamproblem'])
    document.addEventListener(type, media, true);
  // Where the driver's clicks land (the element under the pointer, not the one the test meant).
  const where = (e) => {
    try {
      const log = JSON.parse(sessionStorage.getItem('__mediaLog') || '[]');
      const t = e.target;
      const name = t.tagName ? t.tagName.toLowerCase() + (t.getAttribute('aria-label') ? '[' + t.getAttribute('aria-label') + ']' : '') + (t.className && typeof t.className === 'string' ? '.' + t.className.split(' ')[0] : '') : String(t);
      log.push(e.type + ' ' + name + ' at ' + Math.round(e.clientX) + ',' + Math.round(e.clientY) + ' t' + Math.round(performance.now()));
      sessionStorage.setItem('__mediaLog', JSON.stringify(log.slice(-40)));
    } catch {}
  };
  for (const type of ['pointerdown', 'click']) document.addEventListener(type, where, true);
  const original = console.error;
  console.error = (...args) => {
    record('console.error: ' + args.map(String).join(' '));
    return original.apply(console, args);
  };
})();`;

export interface JourneyFixture {
  base: string;
  email: string;
  password: string;
  videoId: string;
}

export interface JourneyResult {
  engine: string;
  /** hls.js, native-hls or progressive: what the player chose. */
  playerEngine: string;
  /**
   * How far (px) the Play button moved between the player showing its engine and playback: a
   * control that moves under the pointer while the stream loads swallows the member's click.
   */
  controlsMoved: number;
  /** Renditions the quality menu offered, in order. */
  qualities: string[];
  /** HLS requests the page made (resource timing): master, media playlist, key, segments. */
  hlsRequests: { master: number; playlist: number; key: number; segments: number };
  problems: string[];
  /**
   * After the journey, a deliberate CSP violation (an image from another origin) and a
   * `console.error`: whether this engine's collection saw both (else "no problems" means nothing).
   */
  detects: { csp: boolean; consoleError: boolean };
  /** Wall time of each step, ms. */
  steps: Record<string, number>;
}

const VIDEO = '[data-testid=secure-video]';

/** Polls `body` in the page until it returns a truthy value. */
export async function waitFor<T>(d: EngineDriver, what: string, body: string, arg?: unknown, timeout = 30_000): Promise<T> {
  const explain = (last: unknown) =>
    d
      .evaluate<string>(`const v = document.querySelector('${VIDEO}');
        return JSON.stringify({ path: location.pathname, video: v && { paused: v.paused, seeking: v.seeking, readyState: v.readyState, networkState: v.networkState,
          error: v.error && v.error.message, currentTime: v.currentTime, buffered: v.buffered.length && v.buffered.end(0), ...v.dataset },
          probe: JSON.parse(sessionStorage.getItem('__engineProbe') || '[]'),
          media: JSON.parse(sessionStorage.getItem('__mediaLog') || '[]') })`)
      .catch((e) => String(e))
      .then((state) => new Error(`${d.name}: timed out waiting for ${what} (last: ${String(last)}; page: ${state})`));
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await d.evaluate<T>(body, arg);
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw await explain(last);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Installs the page's probe where the protocol has no preload scripts (see PROBE). */
async function probe(d: EngineDriver): Promise<void> {
  if (d.probeAfterLoad) await d.evaluate(PROBE);
}

/** The age gate passed before (what ENTER SITE stores), then the login form, until the redirect after it. */
export async function logIn(d: EngineDriver, f: JourneyFixture): Promise<void> {
  await d.goto(`${f.base}/login`);
  await d.evaluate("localStorage.setItem('ageVerified', 'true')");
  await d.goto(`${f.base}/login`);
  await probe(d);
  await waitFor(d, 'the login form', "return !!document.querySelector('input[name=email]')");
  await d.type('input[name=email]', f.email);
  await d.type('input[name=password]', f.password);
  await d.click('//form//button[@type="submit"]');
  await waitFor(d, 'the redirect after login', "return location.pathname !== '/login' && location.pathname");
}

/** The video's page and its Watch Now: the player opens (its engine may still be loading). */
export async function openPlayer(d: EngineDriver, f: JourneyFixture): Promise<void> {
  await d.goto(`${f.base}/videos/${f.videoId}`);
  await probe(d);
  await waitFor(d, 'Watch Now', `return [...document.querySelectorAll('button')].some((b) => /Watch Now/.test(b.textContent))`);
  await d.click('//button[contains(., "Watch Now")]');
}

export async function memberJourney(d: EngineDriver, f: JourneyFixture): Promise<JourneyResult> {
  const steps: Record<string, number> = {};
  let t = Date.now();
  const step = (name: string) => {
    steps[name] = Date.now() - t;
    t = Date.now();
  };

  await logIn(d, f);
  step('login');

  // The catalog (in-app navigation from here on: one document, one probe).
  const catalog = `//nav//a[@href="/videos"] | //header//a[@href="/videos"]`;
  const hasCatalogLink = await d.evaluate<boolean>(
    `return !!document.evaluate(${JSON.stringify(catalog)}, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue`,
  );
  if (hasCatalogLink) await d.click(catalog);
  else {
    await d.goto(`${f.base}/videos`);
    await probe(d);
  }
  await waitFor(d, 'the catalog', "return location.pathname === '/videos'");
  const card = `a[href="/videos/${f.videoId}"]`;
  await waitFor(d, 'the video in the catalog', `return !!document.querySelector(${JSON.stringify(card)})`);
  step('catalog');

  // The video page and the player.
  await d.click(card);
  await waitFor(d, 'the video page', `return location.pathname === '/videos/${f.videoId}'`);
  await waitFor(d, 'Watch Now', `return [...document.querySelectorAll('button')].some((b) => /Watch Now/.test(b.textContent))`);
  await d.click('//button[contains(., "Watch Now")]');
  // Where Play is as soon as the player shows it, before the stream's metadata.
  const playAt = await waitFor<{ x: number; y: number }>(
    d,
    'the Play button',
    "const b = document.querySelector('button[aria-label=Play]'); const r = b && b.getBoundingClientRect(); return r && { x: r.x, y: r.y }",
  );
  const playerEngine = await waitFor<string>(d, "the player's engine", `return document.querySelector('${VIDEO}')?.dataset.engine`);
  step('video page');

  await d.click('//button[@aria-label="Play"]');
  await waitFor(d, 'playback', `return document.querySelector('${VIDEO}').currentTime > 1`);
  const pauseAt = await d.evaluate<{ x: number; y: number }>(
    "const r = document.querySelector('button[aria-label=Pause]').getBoundingClientRect(); return { x: r.x, y: r.y }",
  );
  const controlsMoved = Math.round(Math.hypot(pauseAt.x - playAt.x, pauseAt.y - playAt.y));
  step('playback');

  // The quality menu: "Auto", then the member's renditions; picking one switches to it.
  const qualities = await d.evaluate<string[]>(
    `return [...document.querySelectorAll('select[aria-label=Quality] option')].map((o) => o.textContent)`,
  );
  await d.selectOption('select[aria-label=Quality]', '360p');
  await waitFor(d, 'the 360p rendition', `return document.querySelector('${VIDEO}').dataset.level === '360'`);
  const at = await d.evaluate<number>(`return document.querySelector('${VIDEO}').currentTime`);
  await waitFor(d, 'playback at 360p', `return document.querySelector('${VIDEO}').currentTime > arguments[0] + 0.5`, at);
  await d.selectOption('select[aria-label=Quality]', 'Auto');
  await waitFor(d, 'Auto again', `return document.querySelector('select[aria-label=Quality]').value === '-1'`);
  step('quality menu');

  const hlsRequests = await d.evaluate<JourneyResult['hlsRequests']>(`
    const paths = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);
    const n = (re) => paths.filter((p) => re.test(p)).length;
    return {
      master: n(/^\\/api\\/hls\\/[^/]+\\/master\\.m3u8$/),
      playlist: n(/^\\/api\\/hls\\/[^/]+\\/\\d+p\\/index\\.m3u8$/),
      key: n(/^\\/api\\/hls\\/[^/]+\\/key$/),
      segments: n(/^\\/api\\/hls\\/[^/]+\\/segments\\/\\d+p-seg_\\d{5}\\.ts$/),
    };`);

  // Close the player, then the account page through the header's link.
  await d.click('//button[@aria-label="Close player"]');
  await d.click('//a[@href="/account"]');
  await waitFor(d, 'the account page', `return [...document.querySelectorAll('h1')].some((h) => h.textContent === 'Account settings')`);
  step('account page');
  // Where the probe is installed after load (WebKit), make sure this document has it before the self-check.
  await probe(d);

  const collected = async () => [
    ...d.problems(),
    ...(await d.evaluate<string[]>("return JSON.parse(sessionStorage.getItem('__engineProbe') || '[]')")),
  ];
  const problems = await collected();

  await d.evaluate(`const img = document.createElement('img');
    img.src = 'http://csp-self-check.invalid/pixel.png';
    document.body.append(img);
    console.error('engine-self-check');`);
  const seen = await waitFor<string[]>(
    d,
    'the self-check to be collected',
    "const all = JSON.parse(sessionStorage.getItem('__engineProbe') || '[]'); return all.some((p) => p.includes('csp-self-check.invalid')) && all",
  ).then(async () => collected());
  const detects = {
    csp: seen.some((p) => p.includes('csp-self-check.invalid')),
    consoleError: seen.some((p) => p.includes('engine-self-check')),
  };
  return { engine: d.name, playerEngine, controlsMoved, qualities, hlsRequests, problems, detects, steps };
}

/**
 * `body` as one expression with `arg` bound to `arguments[0]`. Evaluated as a string by the
 * protocol, which the page's CSP does not govern (a `new Function` in the page would be refused).
 */
export const expression = (body: string, arg?: unknown): string =>
  `(function () { ${body} }).apply(null, ${JSON.stringify(arg === undefined ? [] : [arg])})`;
