/** Channel names the preload needs (kept apart from ipc.ts so the preload bundle carries no zod). */
export const UPLOADS_CHANGED = 'uploads:changed';
/** A new chat message pushed by the main process's live feed (main/chatLive.ts). */
export const CHAT_MESSAGE = 'chat:message';
/** The live feed's state (live, reconnecting, ended…). */
export const CHAT_STATE = 'chat:stateChanged';
/** A push of the followed show chat room (main/chatLive.ts's relay): a message posted or removed. */
export const SHOW_CHAT_PUSH = 'showChat:push';
/** The show chat relay's state (which show, live, reconnecting, ended…). */
export const SHOW_CHAT_STATE = 'showChat:stateChanged';
/** The renderer's origin inside Electron (a privileged custom scheme, not file://). */
export const APP_ORIGIN = 'app://renderer';
