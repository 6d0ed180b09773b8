import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Almanac's web UI. Built by `npm ci` (the root package's `prepare` script) into ui/dist, which the server serves
 * (src/http/ui.ts). `base: './'`: chunks load one another relative to themselves, so the same build works at `/` and
 * under `/almanac/` (the server rewrites index.html's own references for its prefix).
 */
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // No inline <script> or data: module preloads: the page runs under script-src 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/logIn': 'http://127.0.0.1:8080', '/logOut': 'http://127.0.0.1:8080' },
  },
});
