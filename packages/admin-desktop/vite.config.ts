// The renderer: a Vite-built React app in dist/renderer, loaded from app://renderer/ by Electron
// and served by the dev bridge for Chromium. Relative asset URLs work for both.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../../dist/renderer',
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: true,
    // The charts chunk (recharts) is lazy-loaded and ~380 kB; nothing here is fetched over a network.
    chunkSizeWarningLimit: 1000,
  },
});
