import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The operator console (docs/console.md). `npm run build:console` writes console/dist, which
 * the local cloud serves at /console/; deployed, the console's function carries the same
 * build (cdk/lib/constructs/console-bundle.ts). `npx vite --config console/vite.config.mts`
 * serves it with hot reload against a local cloud on port 3000.
 */
const localCloud = `http://127.0.0.1:${process.env.PORT ?? '3000'}`;

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 400 },
  server: {
    proxy: {
      '/console/config.json': localCloud,
      '/v1': { target: localCloud, ws: true },
    },
  },
});
