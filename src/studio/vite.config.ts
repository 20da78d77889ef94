// Builds the studio into dist/studio/ (shipped in the package: users never run Vite). Built files go under
// /studio-assets/ because /assets/ is the API's catalog files; gzip and brotli copies are written next to
// them so `serve` sends precompressed bytes without compressing per request.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = path.resolve(root, '../../dist/studio');

function precompress() {
  return {
    name: 'shortwright-precompress',
    apply: 'build' as const,
    closeBundle() {
      const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => {
        const p = path.join(dir, f);
        return statSync(p).isDirectory() ? walk(p) : [p];
      });
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const bytes = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  plugins: [preact(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'studio-assets',
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
