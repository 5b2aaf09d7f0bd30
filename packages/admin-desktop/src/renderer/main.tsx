/** Renderer entry: find the main process (preload or dev bridge) and mount the app. */
import '@members/ui/styles.css';
import './desktop.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { resolveDesktopApi } from './desktopApi.js';

const root = createRoot(document.getElementById('root') as HTMLElement);
const desktop = resolveDesktopApi();
root.render(
  <StrictMode>
    {desktop ? (
      <App desktop={desktop} />
    ) : (
      <main className="signin">
        <h1>Members Admin</h1>
        <p>This window must be opened by the desktop app (or its dev bridge).</p>
      </main>
    )}
  </StrictMode>,
);
