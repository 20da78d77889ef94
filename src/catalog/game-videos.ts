// The gameplay catalog behind split-screen shorts (GET /game-videos, `shorts game-videos`,
// `gameVideo`/`gameVideoName`): assets/catalog/game-videos/manifest.json plus the silent loops and
// preview frames that scripts/build-catalog.mjs generates with FFmpeg's own generative sources.
// The render loops a file and starts it at a random offset, so any length works; the manifest keeps
// the measured duration so the offset can be drawn without probing the file at render time.
import path from 'node:path';
import { CatalogError, catalogRoot, readManifest, type CatalogItemBase, type CatalogManifest } from './catalog-manifest.js';

export interface GameVideo extends CatalogItemBase {
  /** Seconds, measured with ffprobe. */
  duration: number;
  /** Picture size of the file (the render scales and crops it to the bottom half). */
  width: number;
  height: number;
}

export function gameVideosDir(): string {
  return path.join(catalogRoot(), 'game-videos');
}

let cached: { dir: string; manifest: CatalogManifest<GameVideo> } | null = null;

/** The catalog, read once per folder (operators restart to add items, as for music). */
export function gameVideoCatalog(): CatalogManifest<GameVideo> {
  const dir = gameVideosDir();
  if (cached?.dir !== dir) cached = { dir, manifest: readManifest<GameVideo>(dir, 'gameVideos', checkGameVideo) };
  return cached.manifest;
}

function checkGameVideo(item: Record<string, unknown>, where: string): void {
  if (typeof item.duration !== 'number' || !(item.duration > 0)) throw new CatalogError(`${where} needs "duration" (seconds, > 0; ffprobe)`);
  for (const key of ['width', 'height'] as const) {
    const v = item[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new CatalogError(`${where} needs "${key}" (pixels, a positive integer)`);
  }
}

/** Exact, case-sensitive lookup, as the spec asks for names. */
export function findGameVideo(name: string): GameVideo | undefined {
  return gameVideoCatalog().items.find((g) => g.name === name);
}

export function gameVideoFilePath(item: GameVideo): string {
  return path.resolve(gameVideosDir(), item.file);
}

export function gameVideoPreviewPath(item: GameVideo): string {
  return path.resolve(gameVideosDir(), item.preview);
}

/** An item chosen at random (gameVideoName omitted); `random` is injectable so tests are repeatable. */
export function randomGameVideo(random: () => number = Math.random): GameVideo | undefined {
  const items = gameVideoCatalog().items;
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))];
}

/**
 * Where in the loop the gameplay starts: uniform over the file, so shorts cut from one source do not
 * all show the same footage. The render loops the file, so any offset still fills the whole clip.
 */
export function randomGameOffset(item: Pick<GameVideo, 'duration'>, random: () => number = Math.random): number {
  // At least a second before the end, so the first stretch is real footage and not just the seek.
  const span = Math.max(0, item.duration - 1);
  return Math.min(span, Math.max(0, Math.floor(random() * span * 1000) / 1000));
}
