import type { AppContext } from '../context.js';

/** Where mailed links point: PUBLIC_URL when configured, else the origin the request came to. */
export function linkOrigin(ctx: AppContext, requestUrl: string): string {
  return (ctx.env.PUBLIC_URL ?? new URL(requestUrl).origin).replace(/\/+$/, '');
}
