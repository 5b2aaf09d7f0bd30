/**
 * The API routes the app really mounts, read from Hono's `app.routes` of an app built by
 * `createApp(ctx, modules)` — not a hand-written list, so a route added to any module is covered by the
 * suites that sweep the inventory (robustness.int.test.ts) without anyone remembering to list it.
 */

import type { AppContext } from '../src/kernel/context.js';
import { createApp } from '../src/wiring/app.js';
import { modules } from '../src/wiring/modules.js';

export interface MountedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The full path as mounted, e.g. `/api/admin/users/:id/approve`. */
  path: string;
  /** The path below /api (what `apiClient` takes), e.g. `/admin/users/:id/approve`. */
  apiPath: string;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Every concrete API route (method + path), without middleware (`ALL`) and wildcard entries, sorted. */
export function mountedApiRoutes(ctx: AppContext): MountedRoute[] {
  const app = createApp(ctx, modules);
  const out = new Map<string, MountedRoute>();
  for (const r of app.routes) {
    const method = r.method.toUpperCase();
    if (!METHODS.has(method) || !r.path.startsWith('/api/') || r.path.includes('*')) continue;
    const key = `${method} ${r.path}`;
    if (!out.has(key)) out.set(key, { method: method as MountedRoute['method'], path: r.path, apiPath: r.path.slice('/api'.length) });
  }
  return [...out.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

const PARAM = /:[A-Za-z0-9_]+(\{[^}]*\})?/g;

export const hasParams = (path: string) => new RegExp(PARAM.source).test(path);

/** The path with every `:param` replaced by `value` (already URL-encoded by the caller when needed). */
export const fillParams = (path: string, value: string) => path.replace(PARAM, value);

/** Whether a route template (`/api/videos/:id`) matches a concrete path, segment by segment. */
export function templateMatches(template: string, concrete: string): boolean {
  const t = template.split('/');
  const c = concrete.split('/');
  return t.length === c.length && t.every((seg, i) => seg.startsWith(':') || seg === c[i]);
}
