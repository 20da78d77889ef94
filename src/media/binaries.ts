// Resolves the ffmpeg/ffprobe executables once: configured path, then the system's, then the static
// build shipped by @ffmpeg-installer / @ffprobe-installer (old, 2018, but always installable from npm).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setting } from '../settings.js';

const require = createRequire(import.meta.url);

export interface MediaBinaries { ffmpeg: string; ffprobe: string }

function works(bin: string): boolean {
  const r = spawnSync(bin, ['-version'], { stdio: 'ignore', timeout: 10_000 });
  return !r.error && r.status === 0;
}

function packaged(pkg: string): string | null {
  try {
    const mod = require(pkg) as { path?: string };
    return mod.path ?? null;
  } catch {
    return null;
  }
}

function pick(envVar: 'SHORTS_FFMPEG' | 'SHORTS_FFPROBE', systemName: string, pkg: string): string {
  const configured = setting(envVar);
  if (configured) {
    if (!works(configured)) throw new Error(`${envVar}=${configured} is not a working ${systemName} binary`);
    return configured;
  }
  if (works(systemName)) return systemName;
  const bundled = packaged(pkg);
  if (bundled && works(bundled)) return bundled;
  throw new Error(`${systemName} was not found: install it (e.g. apt-get install ffmpeg) or set ${envVar}`);
}

let cached: MediaBinaries | null = null;

/** The ffmpeg and ffprobe to use. SHORTS_FFMPEG / SHORTS_FFPROBE override. */
export function mediaBinaries(): MediaBinaries {
  cached ??= {
    ffmpeg: pick('SHORTS_FFMPEG', 'ffmpeg', '@ffmpeg-installer/ffmpeg'),
    ffprobe: pick('SHORTS_FFPROBE', 'ffprobe', '@ffprobe-installer/ffprobe'),
  };
  return cached;
}
