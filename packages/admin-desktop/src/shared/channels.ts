/** Channel names the preload needs (kept apart from ipc.ts so the preload bundle carries no zod). */
export const UPLOADS_CHANGED = 'uploads:changed';
/** The renderer's origin inside Electron (a privileged custom scheme, not file://). */
export const APP_ORIGIN = 'app://renderer';
