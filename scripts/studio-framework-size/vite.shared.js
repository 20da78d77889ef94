// The one Vite config of the three apps: the framework's plugin, and `~shell` pointing at the shell with the
// framework's router library (ROUTER=lib) or with common.js's few-line router (ROUTER=bare).
import path from 'node:path';

export function config(dir, plugin, ext) {
  const router = process.env.ROUTER ?? 'lib';
  return {
    root: dir,
    logLevel: 'warn',
    publicDir: false,
    plugins: [plugin],
    resolve: { alias: { '~shell': path.join(dir, 'src', `shell-${router}.${ext}`) } },
    build: { outDir: path.join(dir, `dist-${router}`), emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false },
  };
}
