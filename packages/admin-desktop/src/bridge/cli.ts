/**
 * Runs the renderer in any browser without Electron: `pnpm --filter @members/admin-desktop bridge`
 * (after `pnpm build`), then open the printed URL. The file dialog has no browser equivalent, so
 * "Choose files" answers with BRIDGE_FILES (paths separated by the OS path delimiter; folders are
 * expanded). BRIDGE_PORT picks the port (default 5174). Loopback only; a development tool.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileConfigStore, memorySecretStore } from '../main/configStore.js';
import { createDesktopService } from '../main/desktopService.js';
import { createSession } from '../main/session.js';
import { startHttpBridge } from './httpBridge.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDir = process.env.BRIDGE_RENDERER_DIR ?? path.resolve(here, '../../dist/renderer');
const session = createSession({ config: fileConfigStore(path.join(os.tmpdir(), 'members-admin-bridge')), secrets: memorySecretStore() });
const service = createDesktopService({
  session,
  chooseFiles: async () => (process.env.BRIDGE_FILES ?? '').split(path.delimiter).filter(Boolean),
  openExternal: async (url) => console.log(`(bridge) would open in the system browser: ${url}`),
});
const bridge = await startHttpBridge({ service, rendererDir, port: Number(process.env.BRIDGE_PORT ?? 5174) });
console.log(`Admin desktop renderer (dev bridge): ${bridge.url}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void bridge.close().then(() => process.exit(0)));
