/**
 * `React.lazy` for code-split screens, with the two ways a screen's chunk can fail to import
 * handled as a member expects instead of as the "System Error" page:
 *
 * - **The tab is leaving this document** (a link out, a reload, the address bar) while the chunk
 *   still loads. The browser cancels the chunk's request and Firefox rejects the import ("error
 *   loading dynamically imported module"); nobody will see this page any more, so nothing renders
 *   and nothing is logged — the import simply never settles. Should the document stay after all
 *   (a download, a cancelled navigation), the failure is handled as below once `STAY_GRACE_MS`
 *   has passed. WebKitGTK cancels without a `beforeunload` first, so every failure waits half that
 *   before reloading: a reload would cancel the navigation under way.
 * - **The chunk is gone**: a deploy replaced the hashed files while this tab was open. The document
 *   is reloaded once (its new index names the new chunks); if the import fails again within
 *   `RELOAD_MEMORY_MS` of that reload, the route's error page shows — never a reload loop.
 *
 * The leave is noticed with a `beforeunload` listener held only while a chunk is loading (a
 * permanent one would keep pages out of Firefox's back-forward cache).
 */
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

export const STAY_GRACE_MS = 8_000;
export const RELOAD_MEMORY_MS = 60_000;
const RELOAD_KEY = 'chunkReload';

/** What to do when a screen's chunk fails to import while the document stays (pure: the browser state comes in). */
export function chunkFailureAction(s: { path: string; now: number; lastReload: { path: string; at: number } | null }): 'reload' | 'fail' {
  const reloadedHere = s.lastReload !== null && s.lastReload.path === s.path && s.now - s.lastReload.at < RELOAD_MEMORY_MS;
  return reloadedHere ? 'fail' : 'reload';
}

let loading = 0;
let leaving = false;
const markLeaving = () => {
  leaving = true;
};

function readLastReload(): { path: string; at: number } | null {
  try {
    const raw = sessionStorage.getItem(RELOAD_KEY);
    const parsed = raw ? (JSON.parse(raw) as { path?: unknown; at?: unknown }) : null;
    return parsed && typeof parsed.path === 'string' && typeof parsed.at === 'number' ? { path: parsed.path, at: parsed.at } : null;
  } catch {
    return null;
  }
}

const never = <T>() => new Promise<T>(() => {});

async function importScreen<T>(load: () => Promise<T>): Promise<T> {
  if (loading++ === 0) window.addEventListener('beforeunload', markLeaving);
  try {
    return await load();
  } catch (error) {
    // The document may be going away (WebKitGTK cancels the chunk without a beforeunload first): a
    // reload now would cancel that navigation. Whatever is still here after the grace period stays.
    await new Promise((r) => setTimeout(r, leaving ? STAY_GRACE_MS : STAY_GRACE_MS / 2));
    leaving = false;
    const action = chunkFailureAction({ path: location.pathname, now: Date.now(), lastReload: readLastReload() });
    if (action === 'reload') {
      try {
        sessionStorage.setItem(RELOAD_KEY, JSON.stringify({ path: location.pathname, at: Date.now() }));
      } catch {
        throw error; // no memory of the reload: a loop could follow, so show the error page instead
      }
      location.reload();
      return never<T>();
    }
    throw error;
  } finally {
    if (--loading === 0) window.removeEventListener('beforeunload', markLeaving);
  }
}

/** `lazy(load)`, with a cancelled or vanished chunk handled as the module comment says. */
export function lazyScreen<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): LazyExoticComponent<ComponentType<P>> {
  return lazy(() => importScreen(load));
}
