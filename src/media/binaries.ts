// Resolves the ffmpeg/ffprobe executables once: configured path, then the system's, then the static
// build shipped by @ffmpeg-installer / @ffprobe-installer (old, 2018, but always installable from npm).
// Found by looking at the file system as a shell does, not by running `-version`: loading ffmpeg's
// libraries twice cost every process that touched media about 0.5 s of CPU before its real work.
import { createRequire } from 'node:module';
import path from 'node:path';
import { setting } from '../settings.js';
import { findOnPath, isExecutableFile } from './process.js';

const require = createRequire(import.meta.url);

export interface MediaBinaries { ffmpeg: string; ffprobe: string }

/** A path is taken as it is; a bare name is looked up in PATH. */
function works(bin: string): boolean {
  return bin.includes(path.sep) ? isExecutableFile(bin) : findOnPath(bin) !== null;
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
