/**
 * The contract between the renderer and the main process: one zod schema per channel (checked in
 * the main process on every message) and the typed `DesktopApi` the preload exposes as
 * `window.desktop`. The dev bridge speaks the same contract over HTTP.
 */

import type { SecondFactorEnrolment, ShowChatPush } from '@members/ui/api';
import type { StaffRole } from '@members/ui/staffRoles';
import { z } from 'zod';
import type { ProbeResult } from '../main/media.js';
import type { QueueSnapshot } from '../main/uploadQueue.js';

const filePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\0'), 'must not contain NUL');
const shortText = (max: number) => z.string().max(max);
const empty = z.object({}).strict();

export const uploadMetadataSchema = z
  .object({
    title: z.string().trim().min(1, 'Please provide at least a title and video file').max(200),
    description: shortText(5000).optional(),
    model: shortText(100).optional(),
    accessLevel: z.enum(['free', 'premium', 'vip']).optional(),
    tags: z.array(shortText(64)).max(30).optional(),
    categories: z.array(shortText(64)).max(30).optional(),
    durationText: z
      .string()
      .regex(/^(\d{1,3}:)?\d{1,3}:[0-5]\d$/, 'Duration must be in mm:ss format (e.g. 12:34)')
      .optional(),
    /** Only the annual plan may watch it (the behind-the-scenes videos). */
    exclusiveTo: z.literal('annual').optional(),
    /** When it is released: ISO 8601 with an offset (the console converts its local input). */
    publishAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

export const rowIdSchema = z.string().regex(/^[\w.-]{1,80}$/, 'Invalid id');

export const ipcSchemas = {
  'session:get': empty,
  'session:signIn': z
    .object({
      serverUrl: z
        .string()
        .max(500)
        .url()
        .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL'),
      email: z.string().max(254).pipe(z.email('Invalid email address')),
      password: z.string().min(1, 'is required').max(200),
    })
    .strict(),
  'session:signOut': empty,
  'session:verifyCode': z.object({ code: z.string().trim().min(1, 'is required').max(64) }).strict(),
  'session:startEnrolment': empty,
  'session:confirmEnrolment': z.object({ code: z.string().trim().min(1, 'is required').max(64) }).strict(),
  'api:request': z
    .object({
      method: z.enum(['GET', 'POST', 'PUT', 'DELETE']),
      path: z
        .string()
        .max(2000)
        .regex(/^\/(?!\/)[\w\-/.~%?=&,:+]*$/, 'must be an API path like /admin/stats')
        .refine((p) => !p.includes('..'), 'must not contain ..')
        .refine((p) => !p.startsWith('/auth/'), 'sessions go through session:* channels'),
      body: z.unknown().optional(),
    })
    .strict(),
  'files:choose': z.object({ folders: z.boolean().optional() }).strict(),
  'files:expand': z.object({ paths: z.array(filePath).min(1).max(1000) }).strict(),
  'media:inspect': z.object({ path: filePath, thumbnailAtSeconds: z.number().min(0).max(86_400).optional() }).strict(),
  'uploads:add': z
    .object({
      items: z
        .array(
          z
            .object({
              id: rowIdSchema,
              path: filePath,
              metadata: uploadMetadataSchema,
              thumbnailAtSeconds: z.number().min(0).max(86_400).optional(),
            })
            .strict(),
        )
        .min(1)
        .max(500),
    })
    .strict(),
  'uploads:control': z.object({ action: z.enum(['pause', 'resume', 'cancel', 'retry']), id: rowIdSchema }).strict(),
  'uploads:controlAll': z.object({ action: z.enum(['pause', 'resume', 'clearFinished']) }).strict(),
  'uploads:snapshot': empty,
  'chat:state': empty,
  /** The show chat room the console's screen shows (one at a time): the main process follows its socket. */
  'showChat:follow': z.object({ showId: z.string().regex(/^[\w-]{1,64}$/, 'Invalid show id') }).strict(),
  'showChat:stop': empty,
  'showChat:state': empty,
  'shell:openExternal': z.object({ url: z.string().max(2000).url() }).strict(),
  /** Opens the video's player page on the signed-in server in the system browser: the admin's preview (issue 40). */
  'shell:previewVideo': z
    .object({
      videoId: z
        .string()
        .max(64)
        .regex(/^[A-Za-z0-9_-]+$/, 'Invalid video id'),
    })
    .strict(),
  'leaks:examine': z
    .object({
      path: filePath,
      videoId: z
        .string()
        .max(64)
        .regex(/^[A-Za-z0-9_-]+$/, 'Invalid video id')
        .optional(),
    })
    .strict(),
} as const;

export type IpcChannel = keyof typeof ipcSchemas;
export const IPC_CHANNELS = Object.keys(ipcSchemas) as IpcChannel[];
export type IpcRequest<C extends IpcChannel> = z.infer<(typeof ipcSchemas)[C]>;
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;

/** Every answer crosses the boundary as an envelope (thrown errors do not survive IPC well). */
export type IpcAnswer<T> = { ok: true; data: T } | { ok: false; error: string };

export { CHAT_MESSAGE, CHAT_STATE, SHOW_CHAT_PUSH, SHOW_CHAT_STATE, UPLOADS_CHANGED } from './channels.js';

export interface SessionUser {
  id: string;
  email: string;
  role: string;
  /** The staff role (@members/ui/staffRoles): what the console shows this admin. Absent: owner. */
  staffRole?: StaffRole | null;
  firstName?: string;
  lastName?: string;
}

export interface SessionState {
  serverUrl: string | null;
  user: SessionUser | null;
  /** The server holds this admin to the second-factor setup (REQUIRE_ADMIN_2FA) until enrolled. */
  secondFactorSetupRequired?: boolean;
}

export type SignInResult =
  | { ok: true; user: SessionUser; secondFactorSetupRequired?: boolean }
  | {
      ok: false;
      error: string;
      accessDenied?: { title: string; message: string; email: string; role: string };
      /** The password was right; `session.verifyCode` completes the sign-in. */
      mfaRequired?: boolean;
    };

export interface ApiAnswer {
  status: number;
  body: { success: boolean; data?: unknown; error?: string };
}

/** What the table shows of a local file: the probe (less the container name) plus its thumbnail. */
export interface MediaInfo extends Omit<ProbeResult, 'container'> {
  thumbnailDataUrl?: string;
  thumbnailAtSeconds?: number;
}

/** A chat message pushed by the server's socket (any conversation: `userId` names the member). */
export type LiveChatMessage = { id: string; text: string; from: 'member' | 'admin'; sentAt: string; userId: string };

export type ChatLiveStatus = 'stopped' | 'connecting' | 'live' | 'reconnecting' | 'ended';

/** The main process's chat feed (main/chatLive.ts). */
export interface ChatLiveState {
  status: ChatLiveStatus;
  /** Why the feed ended or is reconnecting (shown in the inbox). */
  error?: string;
  /** The last message seen: the next socket resumes after it. */
  lastMessageId: string | null;
}
/** The show chat room's relay (main/chatLive.ts): the show it follows (null: none) and its socket's state. */
export interface ShowChatRelayState extends ChatLiveState {
  showId: string | null;
}
export type { QueueSnapshot, UploadItemSnapshot } from '../main/uploadQueue.js';
export type { ShowChatPush };

/** What the renderer can ask of the main process: `window.desktop`. */
export interface DesktopApi {
  session: {
    get(): Promise<SessionState>;
    signIn(input: IpcRequest<'session:signIn'>): Promise<SignInResult>;
    signOut(): Promise<void>;
    verifyCode(input: IpcRequest<'session:verifyCode'>): Promise<SignInResult>;
    startEnrolment(): Promise<SecondFactorEnrolment>;
    confirmEnrolment(input: IpcRequest<'session:confirmEnrolment'>): Promise<void>;
  };
  api: {
    request(input: IpcRequest<'api:request'>): Promise<ApiAnswer>;
  };
  files: {
    choose(input?: IpcRequest<'files:choose'>): Promise<string[]>;
    expand(input: IpcRequest<'files:expand'>): Promise<string[]>;
    /** The local path of a dropped file (Electron only; undefined in a plain browser). */
    pathOf(file: File): string | undefined;
  };
  media: {
    inspect(input: IpcRequest<'media:inspect'>): Promise<MediaInfo>;
  };
  uploads: {
    add(input: IpcRequest<'uploads:add'>): Promise<{ ids: string[] }>;
    control(input: IpcRequest<'uploads:control'>): Promise<void>;
    controlAll(input: IpcRequest<'uploads:controlAll'>): Promise<void>;
    snapshot(): Promise<QueueSnapshot>;
    onChange(listener: (s: QueueSnapshot) => void): () => void;
  };
  shell: {
    openExternal(input: IpcRequest<'shell:openExternal'>): Promise<void>;
    previewVideo(input: IpcRequest<'shell:previewVideo'>): Promise<void>;
  };
  /** The chat's live feed, followed by the main process (the renderer opens no socket). */
  chat: {
    state(): Promise<ChatLiveState>;
    /** Every new message of every conversation, as the main process receives it. */
    onMessage(listener: (m: LiveChatMessage) => void): () => void;
    onState(listener: (s: ChatLiveState) => void): () => void;
  };
  /** A live show's chat room, followed by the main process (issue 43): pushes of the room the screen shows. */
  showChat: {
    follow(input: IpcRequest<'showChat:follow'>): Promise<ShowChatRelayState>;
    stop(): Promise<void>;
    state(): Promise<ShowChatRelayState>;
    /** A message posted or removed in the followed room (`showId` says which). */
    onPush(listener: (p: ShowChatPush) => void): () => void;
    onState(listener: (s: ShowChatRelayState) => void): () => void;
  };
  leaks: {
    /** Sends a chosen local file to POST /admin/leaks/examinations (multipart, streamed from disk by the main process). */
    examine(input: IpcRequest<'leaks:examine'>): Promise<ApiAnswer>;
  };
}
