/**
 * The Electron shell, kept thin: one window with Electron's security checklist applied
 * (contextIsolation, no nodeIntegration, sandbox, strict CSP, navigation and new windows blocked
 * except block-explorer links opened in the system browser, no permissions), the renderer served
 * from the privileged `app://renderer/` scheme, and every IPC channel handed to the zod-checked
 * desktop service. Session secrets go to safeStorage; the server URL to userData/config.json.
 * The chat's live feed (main/chatLive.ts) runs here; its messages and states go to the renderer on
 * push channels, and a member's message shows a system notification while the window is not focused.
 * So does the relay of the show chat room the Live shows screen has open (issue 43).
 */
import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  session as electronSession,
  ipcMain,
  Notification,
  protocol,
  safeStorage,
  shell,
  type WebContents,
} from 'electron';
import { APP_ORIGIN, CHAT_MESSAGE, CHAT_STATE, SHOW_CHAT_PUSH, SHOW_CHAT_STATE, UPLOADS_CHANGED } from '../shared/channels.js';
import { IPC_CHANNELS } from '../shared/ipc.js';
import type { Notifier } from './chatLive.js';
import { encryptedSecretStore, fileConfigStore } from './configStore.js';
import { createDesktopService } from './desktopService.js';
import { isExplorerUrl } from './externalLinks.js';
import { readRendererFile } from './rendererFiles.js';
import { createSession } from './session.js';

const RENDERER_DIR = path.join(__dirname, '..', 'renderer');
const PRELOAD = path.join(__dirname, 'preload.cjs');

protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

let mainWindow: BrowserWindow | null = null;

function isAppUrl(url: string): boolean {
  return url === APP_ORIGIN || url.startsWith(`${APP_ORIGIN}/`);
}

function harden(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExplorerUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1360,
    height: 900,
    title: 'Members Admin',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

/** New member messages as system notifications; a click brings the console forward. */
const desktopNotifier: Notifier = {
  notify({ title, body }) {
    if (!Notification.isSupported()) return;
    const n = new Notification({ title, body, silent: false });
    n.on('click', () => {
      if (!mainWindow || mainWindow.isDestroyed()) return;
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    });
    n.show();
  },
};

function sendToRenderer(channel: string, value: unknown): void {
  if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(channel, value);
}

async function start(): Promise<void> {
  await app.whenReady();
  electronSession.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  protocol.handle('app', async (request) => {
    const url = new URL(request.url);
    if (url.host !== 'renderer') return new Response('Not found', { status: 404 });
    const file = await readRendererFile(RENDERER_DIR, url.pathname);
    return new Response(new Uint8Array(file.body), { status: file.status, headers: file.headers });
  });

  const userData = app.getPath('userData');
  const session = createSession({
    config: fileConfigStore(userData),
    secrets: encryptedSecretStore(path.join(userData, 'session.bin'), safeStorage),
  });
  await session.restore();

  const service = createDesktopService({
    session,
    async chooseFiles({ folders }) {
      const options: Electron.OpenDialogOptions = {
        title: folders ? 'Choose folders of videos' : 'Choose videos',
        properties: folders ? ['openDirectory', 'multiSelections'] : ['openFile', 'multiSelections'],
        filters: folders
          ? undefined
          : [
              { name: 'Videos', extensions: ['mp4', 'mov', 'avi', 'mkv', 'webm', 'm4v'] },
              { name: 'All files', extensions: ['*'] },
            ],
      };
      const result = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
      return result.canceled ? [] : result.filePaths;
    },
    openExternal: (url) => shell.openExternal(url),
    thumbnailDir: path.join(userData, 'thumbnails'),
    notifier: desktopNotifier,
    isFocused: () => Boolean(mainWindow && !mainWindow.isDestroyed() && mainWindow.isFocused()),
  });

  for (const channel of IPC_CHANNELS) {
    ipcMain.handle(channel, (event, payload: unknown) => {
      // Only our own page may call: not a navigated-away frame, not a subframe.
      const frameUrl = event.senderFrame?.url ?? '';
      if (!isAppUrl(frameUrl) || event.senderFrame !== event.sender.mainFrame) return { ok: false, error: 'Refused: unknown sender' };
      return service.invoke(channel, payload);
    });
  }
  service.onUploadsChanged((snapshot) => sendToRenderer(UPLOADS_CHANGED, snapshot));
  service.chat.onMessage((message) => sendToRenderer(CHAT_MESSAGE, message));
  service.chat.onState((state) => sendToRenderer(CHAT_STATE, state));
  service.showChat.onPush((push) => sendToRenderer(SHOW_CHAT_PUSH, push));
  service.showChat.onState((state) => sendToRenderer(SHOW_CHAT_STATE, state));

  mainWindow = createWindow();
  mainWindow.on('closed', () => {
    mainWindow = null;
  });
}

app.on('web-contents-created', (_event, contents) => harden(contents));
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('activate', () => {
  if (!mainWindow && app.isReady()) mainWindow = createWindow();
});

start().catch((err) => {
  dialog.showErrorBox('Members Admin could not start', String((err as Error)?.stack ?? err));
  app.quit();
});
