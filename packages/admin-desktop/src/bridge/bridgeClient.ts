/**
 * The renderer side of the dev bridge: the same `DesktopApi` as the Electron preload, over HTTP
 * to the bridge that served the page (see httpBridge.ts). Used only when `window.desktop` is absent
 * and the page carries the bridge's token.
 */
import { createDesktopApi } from '../shared/desktopApi.js';
import type { DesktopApi, IpcAnswer, QueueSnapshot } from '../shared/ipc.js';

export function bridgeToken(): string | undefined {
  return document.querySelector<HTMLMetaElement>('meta[name="desktop-bridge-token"]')?.content || undefined;
}

export function createBridgeClient(token: string): DesktopApi {
  const listeners = new Set<(s: QueueSnapshot) => void>();
  let source: EventSource | undefined;
  function connect() {
    if (source) return;
    source = new EventSource(`/bridge/events?token=${encodeURIComponent(token)}`);
    source.onmessage = (e) => {
      const snapshot = JSON.parse(e.data as string) as QueueSnapshot;
      for (const l of listeners) l(snapshot);
    };
  }

  return createDesktopApi(
    async (channel, payload) => {
      const res = await fetch('/bridge/invoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bridge-token': token },
        body: JSON.stringify({ channel, payload }),
      });
      return (await res.json()) as IpcAnswer<unknown>;
    },
    {
      // A plain browser does not reveal where a dropped file lives.
      pathOf: () => undefined,
      onUploadsChanged(listener) {
        listeners.add(listener);
        connect();
        return () => listeners.delete(listener);
      },
    },
  );
}
