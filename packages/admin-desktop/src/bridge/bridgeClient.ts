/**
 * The renderer side of the dev bridge: the same `DesktopApi` as the Electron preload, over HTTP
 * to the bridge that served the page (see httpBridge.ts). Used only when `window.desktop` is absent
 * and the page carries the bridge's token.
 */
import type { DesktopApi, IpcAnswer, QueueSnapshot } from '../shared/ipc.js';

export function bridgeToken(): string | undefined {
  return document.querySelector<HTMLMetaElement>('meta[name="desktop-bridge-token"]')?.content || undefined;
}

export function createBridgeClient(token: string): DesktopApi {
  async function invoke<T>(channel: string, payload: unknown = {}): Promise<T> {
    const res = await fetch('/bridge/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bridge-token': token },
      body: JSON.stringify({ channel, payload }),
    });
    const answer = (await res.json()) as IpcAnswer<T>;
    if (!answer.ok) throw new Error(answer.error);
    return answer.data;
  }

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

  return {
    session: {
      get: () => invoke('session:get'),
      signIn: (input) => invoke('session:signIn', input),
      signOut: () => invoke('session:signOut'),
    },
    api: { request: (input) => invoke('api:request', input) },
    files: {
      choose: (input = {}) => invoke('files:choose', input),
      expand: (input) => invoke('files:expand', input),
      // A plain browser does not reveal where a dropped file lives.
      pathOf: () => undefined,
    },
    media: { inspect: (input) => invoke('media:inspect', input) },
    uploads: {
      add: (input) => invoke('uploads:add', input),
      control: (input) => invoke('uploads:control', input),
      controlAll: (input) => invoke('uploads:controlAll', input),
      snapshot: () => invoke('uploads:snapshot'),
      onChange(listener) {
        listeners.add(listener);
        connect();
        return () => listeners.delete(listener);
      },
    },
    shell: { openExternal: (input) => invoke('shell:openExternal', input) },
  };
}
