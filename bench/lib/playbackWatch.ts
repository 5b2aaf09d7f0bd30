/**
 * The first-frame wait of bench/web.ts, with its cause when it fails: a bare "Timeout 30000ms
 * exceeded" cannot tell a loaded machine from a stalled player. While it waits it records the
 * player's stream problems (the `streamproblem` events of packages/web/src/player/adaptiveSource.ts:
 * every hls.js error, fatal or retried, and a file the browser cannot load), every fetch of the
 * stream (`/api/videos/{id}/stream`, `/api/hls/…`, `/api/media/…`, the player's scripts: status,
 * time, failure) and the
 * <video> element's state; a failure throws all of it with a verdict:
 * - "playback failed": a fatal problem, a refused or failed fetch, or the player's error message;
 * - "slow, not stalled": no error, but a fetch still open or slow (the machine or the server);
 * - "stalled": no error and nothing in flight for over 5 s, yet no frame (the decoder, or a player bug).
 */
import os from 'node:os';
import type { BrowserContext, Page, Request } from 'playwright-core';

interface Fetch {
  path: string;
  start: number;
  end?: number;
  status?: number;
  failure?: string;
}

interface PlayerState {
  frame: boolean;
  readyState: number;
  networkState: number;
  mediaError: number | null;
  engine: string | null;
  alert: string | null;
  problems: { at: number; engine: string; fatal: boolean; details: string; status?: number; path?: string }[];
}

/** The stream's fetches, and the scripts the player loads on demand (its chunk, hls.js). */
const STREAM = /^\/api\/(videos\/[^/]+\/stream|hls\/|media\/)|^\/assets\/.*\.js$/;

/** Installs the page-side recorder of stream problems (before any page script). */
export async function recordStreamProblems(ctx: BrowserContext): Promise<void> {
  await ctx.addInitScript(() => {
    const w = window as unknown as { __streamProblems: unknown[] };
    w.__streamProblems = [];
    document.addEventListener(
      'streamproblem',
      (e) => w.__streamProblems.push({ at: performance.now(), ...(e as CustomEvent).detail }),
      true,
    );
  });
}

/** Watches the stream fetches of `tab` from now on. */
export function watchPlayback(tab: Page) {
  const fetches = new Map<Request, Fetch>();
  let origin = performance.now();
  const onRequest = (r: Request) => {
    const path = new URL(r.url()).pathname;
    if (STREAM.test(path)) fetches.set(r, { path, start: performance.now() });
  };
  const onFinished = async (r: Request) => {
    const f = fetches.get(r);
    if (!f) return;
    f.end = performance.now();
    f.status = (await r.response().catch(() => null))?.status();
  };
  const onFailed = (r: Request) => {
    const f = fetches.get(r);
    if (!f) return;
    f.end = performance.now();
    f.failure = r.failure()?.errorText ?? 'failed';
  };
  tab.on('request', onRequest);
  tab.on('requestfinished', onFinished);
  tab.on('requestfailed', onFailed);

  const state = (): Promise<PlayerState> =>
    tab.evaluate(() => {
      const v = document.querySelector('[data-testid=secure-video]') as HTMLVideoElement | null;
      return {
        frame: Boolean(v && v.readyState >= 2 && v.videoWidth > 0),
        readyState: v?.readyState ?? -1,
        networkState: v?.networkState ?? -1,
        mediaError: v?.error?.code ?? null,
        engine: v?.dataset.engine ?? null,
        alert: document.querySelector('.player-message[role=alert]')?.textContent ?? null,
        problems: (window as unknown as { __streamProblems?: PlayerState['problems'] }).__streamProblems ?? [],
      };
    });

  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

  function diagnosis(st: PlayerState, waited: number, pageOrigin: number): string {
    const now = performance.now();
    const all = [...fetches.values()];
    const refused = all.filter((f) => f.failure || (f.status !== undefined && f.status >= 400));
    const open = all.filter((f) => f.end === undefined);
    const slowest = [...all].sort((a, b) => (b.end ?? now) - b.start - ((a.end ?? now) - a.start))[0];
    const fatal = st.problems.filter((p) => p.fatal);
    const idle = now - Math.max(origin, ...all.map((f) => f.end ?? now));
    const verdict =
      fatal.length || refused.length || st.alert
        ? `playback failed: ${fatal[0] ? `${fatal[0].engine} ${fatal[0].details}${fatal[0].status ? ` ${fatal[0].status}` : ''}` : refused[0] ? `${refused[0].path} ${refused[0].failure ?? refused[0].status}` : st.alert}`
        : open.length || (slowest && (slowest.end ?? now) - slowest.start > 2000)
          ? `slow, not stalled: no error; ${open.length ? `${open.length} fetch(es) still open, ` : ''}slowest ${slowest?.path} ${s((slowest?.end ?? now) - (slowest?.start ?? now))}`
          : st.readyState < 0
            ? 'slow, not stalled: no error, and the player is not on the page yet'
            : idle > 5000
              ? `stalled: no error, nothing in flight for ${s(idle)}, yet no frame (the decoder or the player)`
              : `no error, nothing in flight for ${s(idle)}: still decoding, or a stall just begun`;
    const lines = [
      `no first frame after ${s(waited)} — ${verdict}`,
      `  machine: load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.cpus().length} cores`,
      `  player: engine ${st.engine ?? '—'}, readyState ${st.readyState}, networkState ${st.networkState}, media error ${st.mediaError ?? 'none'}${st.alert ? `, says "${st.alert}"` : ''}`,
      `  stream problems (${st.problems.length}):`,
      ...st.problems.map(
        (p) =>
          `    +${s(p.at - pageOrigin)} ${p.engine} ${p.details}${p.status ? ` ${p.status}` : ''}${p.fatal ? ' (fatal)' : ' (retried)'} ${p.path ?? ''}`,
      ),
      `  stream fetches (${all.length}):`,
      ...all.map(
        (f) =>
          `    +${s(f.start - origin)} ${f.path} ${f.end === undefined ? `still open after ${s(now - f.start)}` : `${f.failure ?? f.status} in ${s(f.end - f.start)}`}`,
      ),
    ];
    return lines.join('\n');
  }

  return {
    /** Starts a new attempt: the fetch record and the clock start over. */
    reset() {
      fetches.clear();
      origin = performance.now();
    },
    /** Waits for a decoded frame; throws the diagnosis when the player gives up or `timeoutMs` passes. */
    async firstFrame(timeoutMs: number): Promise<{ problems: PlayerState['problems'] }> {
      const started = performance.now();
      const pageOrigin = await tab.evaluate(() => performance.now()).then((pageNow) => pageNow - (performance.now() - origin));
      for (;;) {
        const st = await state();
        if (st.frame) return { problems: st.problems };
        const waited = performance.now() - started;
        if (st.alert || waited > timeoutMs) throw new Error(diagnosis(st, waited, pageOrigin));
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop() {
      tab.off('request', onRequest);
      tab.off('requestfinished', onFinished);
      tab.off('requestfailed', onFailed);
    },
  };
}
