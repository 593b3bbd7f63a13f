import { defineConfig } from 'vite';

// The dashboard is served by the API server under /ui/ (src/apiserver/ui).
export default defineConfig({
  base: '/ui/',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 600 },
  logLevel: 'warn',
});
