/** Vite: React, the /api proxy to the local API in dev, and one chunk per lazily loaded route. */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': {
        target: 'http://127.0.0.1:8080',
        changeOrigin: false,
        // The API takes state-changing requests only from PUBLIC_URL's origin (http://localhost:8080
        // in development); this page is on Vite's port, so its requests reach the API without Origin.
        configure: (proxy) => proxy.on('proxyReq', (req) => req.removeHeader('origin')),
      },
    },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
});
