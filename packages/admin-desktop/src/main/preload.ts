/**
 * The preload of the sandboxed renderer: exposes the narrow, typed `window.desktop` API
 * (shared/ipc.ts) through contextBridge. It only forwards; the main process validates every
 * message with zod. Bundled to CommonJS with nothing but `electron` required.
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer, webUtils } from 'electron';
import { UPLOADS_CHANGED } from '../shared/channels.js';
import type { DesktopApi, IpcAnswer, QueueSnapshot } from '../shared/ipc.js';

async function invoke<T>(channel: string, payload: unknown = {}): Promise<T> {
  const answer = (await ipcRenderer.invoke(channel, payload)) as IpcAnswer<T>;
  if (!answer.ok) throw new Error(answer.error);
  return answer.data;
}

const desktop: DesktopApi = {
  session: {
    get: () => invoke('session:get'),
    signIn: (input) => invoke('session:signIn', input),
    signOut: () => invoke('session:signOut'),
  },
  api: { request: (input) => invoke('api:request', input) },
  files: {
    choose: (input = {}) => invoke('files:choose', input),
    expand: (input) => invoke('files:expand', input),
    pathOf: (file) => {
      try {
        return webUtils.getPathForFile(file) || undefined;
      } catch {
        return undefined;
      }
    },
  },
  media: { inspect: (input) => invoke('media:inspect', input) },
  uploads: {
    add: (input) => invoke('uploads:add', input),
    control: (input) => invoke('uploads:control', input),
    controlAll: (input) => invoke('uploads:controlAll', input),
    snapshot: () => invoke('uploads:snapshot'),
    onChange(listener) {
      const handler = (_e: IpcRendererEvent, s: QueueSnapshot) => listener(s);
      ipcRenderer.on(UPLOADS_CHANGED, handler);
      return () => ipcRenderer.removeListener(UPLOADS_CHANGED, handler);
    },
  },
  shell: { openExternal: (input) => invoke('shell:openExternal', input) },
};

contextBridge.exposeInMainWorld('desktop', desktop);
