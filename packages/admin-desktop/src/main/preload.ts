/**
 * The preload of the sandboxed renderer: exposes the narrow, typed `window.desktop` API
 * (shared/ipc.ts) through contextBridge. It only forwards; the main process validates every
 * message with zod. Bundled to CommonJS with nothing but `electron` required.
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer, webUtils } from 'electron';
import { UPLOADS_CHANGED } from '../shared/channels.js';
import { createDesktopApi } from '../shared/desktopApi.js';
import type { IpcAnswer, QueueSnapshot } from '../shared/ipc.js';

const desktop = createDesktopApi((channel, payload) => ipcRenderer.invoke(channel, payload) as Promise<IpcAnswer<unknown>>, {
  pathOf(file) {
    try {
      return webUtils.getPathForFile(file) || undefined;
    } catch {
      return undefined;
    }
  },
  onUploadsChanged(listener) {
    const handler = (_e: IpcRendererEvent, s: QueueSnapshot) => listener(s);
    ipcRenderer.on(UPLOADS_CHANGED, handler);
    return () => ipcRenderer.removeListener(UPLOADS_CHANGED, handler);
  },
});

contextBridge.exposeInMainWorld('desktop', desktop);
