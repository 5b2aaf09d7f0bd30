/**
 * The preload of the sandboxed renderer: exposes the narrow, typed `window.desktop` API
 * (shared/ipc.ts) through contextBridge. It only forwards; the main process validates every
 * message with zod. Bundled to CommonJS with nothing but `electron` required.
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer, webUtils } from 'electron';
import { CHAT_MESSAGE, CHAT_STATE, SHOW_CHAT_PUSH, SHOW_CHAT_STATE, UPLOADS_CHANGED } from '../shared/channels.js';
import { createDesktopApi } from '../shared/desktopApi.js';
import type { IpcAnswer } from '../shared/ipc.js';

/** Forwards one push channel of the main process to a listener; returns the unsubscribe. */
function on<T>(channel: string, listener: (value: T) => void): () => void {
  const handler = (_e: IpcRendererEvent, value: T) => listener(value);
  ipcRenderer.on(channel, handler);
  return () => ipcRenderer.removeListener(channel, handler);
}

const desktop = createDesktopApi((channel, payload) => ipcRenderer.invoke(channel, payload) as Promise<IpcAnswer<unknown>>, {
  pathOf(file) {
    try {
      return webUtils.getPathForFile(file) || undefined;
    } catch {
      return undefined;
    }
  },
  onUploadsChanged: (listener) => on(UPLOADS_CHANGED, listener),
  onChatMessage: (listener) => on(CHAT_MESSAGE, listener),
  onChatState: (listener) => on(CHAT_STATE, listener),
  onShowChatPush: (listener) => on(SHOW_CHAT_PUSH, listener),
  onShowChatState: (listener) => on(SHOW_CHAT_STATE, listener),
});

contextBridge.exposeInMainWorld('desktop', desktop);
