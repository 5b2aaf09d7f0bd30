/**
 * The `DesktopApi` channel map in one place, over any transport: the Electron preload passes
 * `ipcRenderer.invoke`, the dev bridge passes an HTTP call. A new channel is added here once.
 */
import type { ChatLiveState, DesktopApi, IpcAnswer, LiveChatMessage, QueueSnapshot, ShowChatPush, ShowChatRelayState } from './ipc.js';

/** Sends one message on a channel and returns the raw answer envelope. */
export type Transport = (channel: string, payload: unknown) => Promise<IpcAnswer<unknown>>;

export interface TransportExtras {
  /** The local path of a dropped file, where the platform can tell it. */
  pathOf(file: File): string | undefined;
  /** Subscribes to queue snapshots pushed by the main process; returns the unsubscribe. */
  onUploadsChanged(listener: (s: QueueSnapshot) => void): () => void;
  /** Subscribes to the chat messages and feed states pushed by the main process. */
  onChatMessage(listener: (m: LiveChatMessage) => void): () => void;
  onChatState(listener: (s: ChatLiveState) => void): () => void;
  /** Subscribes to the followed show chat room's pushes and relay states. */
  onShowChatPush(listener: (p: ShowChatPush) => void): () => void;
  onShowChatState(listener: (s: ShowChatRelayState) => void): () => void;
}

export function createDesktopApi(send: Transport, extras: TransportExtras): DesktopApi {
  async function invoke<T>(channel: string, payload: unknown = {}): Promise<T> {
    const answer = (await send(channel, payload)) as IpcAnswer<T>;
    if (!answer.ok) throw new Error(answer.error);
    return answer.data;
  }
  return {
    session: {
      get: () => invoke('session:get'),
      signIn: (input) => invoke('session:signIn', input),
      signOut: () => invoke('session:signOut'),
      verifyCode: (input) => invoke('session:verifyCode', input),
      startEnrolment: () => invoke('session:startEnrolment'),
      confirmEnrolment: (input) => invoke('session:confirmEnrolment', input),
    },
    api: { request: (input) => invoke('api:request', input) },
    files: {
      choose: (input = {}) => invoke('files:choose', input),
      expand: (input) => invoke('files:expand', input),
      pathOf: extras.pathOf,
    },
    media: { inspect: (input) => invoke('media:inspect', input) },
    uploads: {
      add: (input) => invoke('uploads:add', input),
      control: (input) => invoke('uploads:control', input),
      controlAll: (input) => invoke('uploads:controlAll', input),
      snapshot: () => invoke('uploads:snapshot'),
      onChange: extras.onUploadsChanged,
    },
    shell: {
      openExternal: (input) => invoke('shell:openExternal', input),
      previewVideo: (input) => invoke('shell:previewVideo', input),
    },
    chat: { state: () => invoke('chat:state'), onMessage: extras.onChatMessage, onState: extras.onChatState },
    showChat: {
      follow: (input) => invoke('showChat:follow', input),
      stop: () => invoke('showChat:stop'),
      state: () => invoke('showChat:state'),
      onPush: extras.onShowChatPush,
      onState: extras.onShowChatState,
    },
    leaks: { examine: (input) => invoke('leaks:examine', input) },
  };
}
