/**
 * Everything the renderer may ask, behind one `invoke(channel, payload)`: each message is checked
 * against its zod schema (shared/ipc.ts) before anything runs, and answers are envelopes. main.ts
 * wires it to `ipcMain.handle`, the dev bridge to HTTP; neither adds behaviour of its own.
 * Only files the admin chose (dialog, drop, folder) may be probed or uploaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeIssues } from '../shared/describeIssues.js';
import { type ApiAnswer, type IpcAnswer, type IpcChannel, type IpcRequest, ipcSchemas, type MediaInfo } from '../shared/ipc.js';
import { type ChatLive, type ChatLiveOptions, createChatLive, createShowChatLive, type Notifier, type ShowChatLive } from './chatLive.js';
import { isExplorerUrl } from './externalLinks.js';
import * as media from './media.js';
import type { Session } from './session.js';
import type { TusEndpoint } from './tusClient.js';
import { type QueueSnapshot, UploadQueue, type UploadQueueOptions } from './uploadQueue.js';

export interface DesktopServiceDeps {
  session: Session;
  /** Shows the open dialog (Electron) or answers with a preset list (bridge, tests). */
  chooseFiles(opts: { folders: boolean }): Promise<string[]>;
  /** Opens a URL in the system browser (already checked: a block-explorer link, or a video page of the signed-in server). */
  openExternal(url: string): Promise<void>;
  /** Thumbnail cache folder. */
  thumbnailDir?: string;
  queueOptions?: UploadQueueOptions;
  /** Desktop notifications of new member messages (Electron's Notification; a recorder in tests). */
  notifier?: Notifier;
  /** Whether the console window has the focus (no notification then). */
  isFocused?: () => boolean;
  /** The chat feed's WebSocket class and back-off (tests). */
  chatOptions?: Pick<ChatLiveOptions, 'WebSocket' | 'backoff'>;
}

export interface DesktopService {
  invoke(channel: string, payload: unknown): Promise<IpcAnswer<unknown>>;
  onUploadsChanged(listener: (s: QueueSnapshot) => void): () => void;
  queue: UploadQueue;
  /** The chat's live feed (main/chatLive.ts): running while an admin is signed in. */
  chat: ChatLive;
  /** The relay of the show chat room the renderer follows (main/chatLive.ts); left at sign-out. */
  showChat: ShowChatLive;
}

type Handlers = { [C in IpcChannel]: (req: IpcRequest<C>) => Promise<unknown> };

export function createDesktopService(deps: DesktopServiceDeps): DesktopService {
  const { session } = deps;
  const chosen = new Set<string>();
  const inspected = new Map<string, media.ProbeResult>();
  const endpoint: TusEndpoint = {
    baseUrl: () => session.serverUrl(),
    accessToken: () => session.accessToken(),
    refresh: () => session.refresh(),
  };
  const queue = new UploadQueue(endpoint, deps.queueOptions);
  const chat = createChatLive({ session, notifier: deps.notifier, isFocused: deps.isFocused, ...deps.chatOptions });
  const showChat = createShowChatLive({ session, ...deps.chatOptions });
  /** The feed runs while a signed-in admin may use the API (not while held to the second-factor setup). */
  function followChat<T>(answer: T): T {
    const s = session.state();
    if (s.user && !s.secondFactorSetupRequired) chat.start();
    return answer;
  }
  followChat(undefined);

  function allow(paths: string[]): string[] {
    for (const p of paths) chosen.add(path.resolve(p));
    return paths;
  }

  function requireChosen(p: string): string {
    const abs = path.resolve(p);
    if (!chosen.has(abs)) throw new Error('That file was not chosen in this window');
    return abs;
  }

  const handlers: Handlers = {
    'session:get': async () => session.state(),
    'session:signIn': async (r) => followChat(await session.signIn(r.serverUrl, r.email, r.password)),
    'session:verifyCode': async (r) => followChat(await session.verifyCode(r.code)),
    'session:startEnrolment': async () => session.startEnrolment(),
    'session:confirmEnrolment': async (r) => followChat(await session.confirmEnrolment(r.code)),
    'session:signOut': async () => {
      queue.pauseAll();
      chat.stop();
      showChat.stop();
      await session.signOut();
    },
    'api:request': async (r) => {
      if (!session.state().user)
        return { status: 401, body: { success: false, error: 'Please log in to continue', code: 'auth.required' } };
      return session.request(r.method, r.path, r.body);
    },
    'files:choose': async (r) => allow(await media.expandPaths(await deps.chooseFiles({ folders: r.folders ?? false }))),
    'files:expand': async (r) => allow(await media.expandPaths(r.paths)),
    'media:inspect': async (r): Promise<MediaInfo> => {
      const file = requireChosen(r.path);
      const info = await media.probe(file);
      inspected.set(file, info);
      const base: MediaInfo = {
        path: file,
        fileName: info.fileName,
        size: info.size,
        isVideo: info.isVideo,
        reason: info.reason,
        durationSeconds: info.durationSeconds,
        width: info.width,
        height: info.height,
        codec: info.codec,
      };
      if (!info.isVideo) return base;
      try {
        const t = await media.thumbnail(file, { atSeconds: r.thumbnailAtSeconds, width: 320, outDir: deps.thumbnailDir });
        return { ...base, thumbnailDataUrl: await media.thumbnailDataUrl(t), thumbnailAtSeconds: t.atSeconds };
      } catch (err) {
        return { ...base, reason: `Thumbnail failed: ${(err as Error).message}` };
      }
    },
    'uploads:add': async (r) => {
      // Non-videos are never sent, whatever the renderer says.
      const items = [];
      for (const it of r.items) {
        const file = requireChosen(it.path);
        const info = inspected.get(file) ?? (await media.probe(file));
        if (!info.isVideo) throw new Error(`${info.fileName} is not a video: ${info.reason ?? 'not sent'}`);
        items.push({
          id: it.id,
          filePath: file,
          fileName: info.fileName,
          size: info.size,
          metadata: it.metadata,
          thumbnailAtSeconds: it.thumbnailAtSeconds,
        });
      }
      return { ids: queue.add(items) };
    },
    'uploads:control': async (r) => {
      if (r.action === 'pause') queue.pause(r.id);
      else if (r.action === 'resume') queue.resume(r.id);
      else if (r.action === 'retry') queue.retry(r.id);
      else await queue.cancel(r.id);
    },
    'uploads:controlAll': async (r) => {
      if (r.action === 'pause') queue.pauseAll();
      else if (r.action === 'resume') queue.resumeAll();
      else queue.clearFinished();
    },
    'uploads:snapshot': async () => queue.snapshot(),
    'chat:state': async () => chat.state(),
    'showChat:follow': async (r) => {
      if (!session.state().user) throw new Error('Please log in to continue');
      showChat.follow(r.showId);
      return showChat.state();
    },
    'showChat:stop': async () => showChat.stop(),
    'showChat:state': async () => showChat.state(),
    // Leak tracing (docs/leak-tracing.md): the chosen copy streamed from disk as multipart, never read into memory.
    'leaks:examine': async (r): Promise<ApiAnswer> => {
      if (!session.state().user)
        return { status: 401, body: { success: false, error: 'Please log in to continue', code: 'auth.required' } as ApiAnswer['body'] };
      const file = requireChosen(r.path);
      for (let attempt = 0; ; attempt++) {
        const form = new FormData();
        if (r.videoId) form.set('videoId', r.videoId);
        form.set('file', await fs.openAsBlob(file), path.basename(file));
        const token = await session.accessToken();
        let res: Response;
        try {
          res = await fetch(`${session.serverUrl()}/api/admin/leaks/examinations`, {
            method: 'POST',
            headers: token ? { authorization: `Bearer ${token}` } : {},
            body: form,
          });
        } catch (err) {
          return { status: 0, body: { success: false, error: `Cannot reach the server: ${(err as Error).message}` } };
        }
        if (res.status === 401 && attempt === 0 && (await session.refresh())) continue;
        const body = (await res
          .json()
          .catch(() => ({ success: false, error: `Sending the copy failed (${res.status})` }))) as ApiAnswer['body'];
        return { status: res.status, body };
      }
    },
    'shell:openExternal': async (r) => {
      if (!isExplorerUrl(r.url)) throw new Error('Only block explorer links open outside the app');
      await deps.openExternal(r.url);
    },
    // The console has no player: a preview is the server's own player page, where an admin plays any video.
    'shell:previewVideo': async (r) => {
      const server = session.serverUrl();
      if (!server) throw new Error('Sign in to a server first');
      await deps.openExternal(new URL(`/videos/${encodeURIComponent(r.videoId)}`, server).href);
    },
  };

  return {
    queue,
    chat,
    showChat,
    onUploadsChanged: (listener) => queue.onChange(listener),
    async invoke(channel, payload) {
      if (!Object.hasOwn(ipcSchemas, channel)) return { ok: false, error: `Unknown channel ${String(channel).slice(0, 60)}` };
      const c = channel as IpcChannel;
      const parsed = ipcSchemas[c].safeParse(payload ?? {});
      if (!parsed.success) return { ok: false, error: `Invalid ${c} message: ${describeIssues(parsed.error)}` };
      try {
        const handler = handlers[c] as (req: unknown) => Promise<unknown>;
        return { ok: true, data: await handler(parsed.data) };
      } catch (err) {
        return { ok: false, error: (err as Error).message || 'Something went wrong! Please try again later.' };
      }
    },
  };
}
