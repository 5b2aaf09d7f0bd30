/**
 * Where the renderer finds the main process: `window.desktop` from the Electron preload, or the
 * dev bridge's HTTP client when the page was served by the bridge (plain Chromium).
 */
import { bridgeToken, createBridgeClient } from '../bridge/bridgeClient.js';
import type { DesktopApi } from '../shared/ipc.js';

declare global {
  interface Window {
    desktop?: DesktopApi;
  }
}

export function resolveDesktopApi(): DesktopApi | undefined {
  if (window.desktop) return window.desktop;
  const token = bridgeToken();
  return token ? createBridgeClient(token) : undefined;
}
