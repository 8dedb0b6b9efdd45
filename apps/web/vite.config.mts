import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import path from 'node:path';
import { emojiSheet } from './emoji-plugin.mts';

// Built by scripts/build.js into dist/apps/web, which the API tier serves at `/`.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact(), emojiSheet(import.meta.dirname)],
  resolve: {
    alias: { react: 'preact/compat', 'react-dom': 'preact/compat' },
  },
  build: {
    outDir: path.join(import.meta.dirname, '../../dist/apps/web'),
    emptyOutDir: true,
    target: 'es2022',
    // WEB_MINIFY=0 keeps function names, for reading a profile of the page (bench/web-client.ts).
    minify: process.env.WEB_MINIFY !== '0',
    // No inline assets: the CSP admits only files from our origin.
    assetsInlineLimit: 0,
  },
});
