/**
 * The renderer side of the dev bridge: the same `DesktopApi` as the Electron preload, over HTTP
 * to the bridge that served the page (see httpBridge.ts). Used only when `window.desktop` is absent
 * and the page carries the bridge's token.
 */
import { createDesktopApi } from '../shared/desktopApi.js';
import type {
  ChatLiveState,
  DesktopApi,
  IpcAnswer,
  LiveChatMessage,
  QueueSnapshot,
  ShowChatPush,
  ShowChatRelayState,
} from '../shared/ipc.js';

export function bridgeToken(): string | undefined {
  return document.querySelector<HTMLMetaElement>('meta[name="desktop-bridge-token"]')?.content || undefined;
}

export function createBridgeClient(token: string): DesktopApi {
  const listeners = new Set<(s: QueueSnapshot) => void>();
  const chatListeners = new Set<(m: LiveChatMessage) => void>();
  const stateListeners = new Set<(s: ChatLiveState) => void>();
  const roomListeners = new Set<(p: ShowChatPush) => void>();
  const roomStateListeners = new Set<(s: ShowChatRelayState) => void>();
  let source: EventSource | undefined;
  function connect() {
    if (source) return;
    source = new EventSource(`/bridge/events?token=${encodeURIComponent(token)}`);
    source.onmessage = (e) => {
      const snapshot = JSON.parse(e.data as string) as QueueSnapshot;
      for (const l of listeners) l(snapshot);
    };
    source.addEventListener('chat', (e) => {
      const message = JSON.parse((e as MessageEvent).data as string) as LiveChatMessage;
      for (const l of chatListeners) l(message);
    });
    source.addEventListener('chat-state', (e) => {
      const state = JSON.parse((e as MessageEvent).data as string) as ChatLiveState;
      for (const l of stateListeners) l(state);
    });
    source.addEventListener('show-chat', (e) => {
      const push = JSON.parse((e as MessageEvent).data as string) as ShowChatPush;
      for (const l of roomListeners) l(push);
    });
    source.addEventListener('show-chat-state', (e) => {
      const state = JSON.parse((e as MessageEvent).data as string) as ShowChatRelayState;
      for (const l of roomStateListeners) l(state);
    });
  }
  function subscribe<T>(set: Set<(v: T) => void>, listener: (v: T) => void): () => void {
    set.add(listener);
    connect();
    return () => set.delete(listener);
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
      onUploadsChanged: (listener) => subscribe(listeners, listener),
      onChatMessage: (listener) => subscribe(chatListeners, listener),
      onChatState: (listener) => subscribe(stateListeners, listener),
      onShowChatPush: (listener) => subscribe(roomListeners, listener),
      onShowChatState: (listener) => subscribe(roomStateListeners, listener),
    },
  );
}
