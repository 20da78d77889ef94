// The gameplay catalog behind split-screen shorts (GET /game-videos, `shorts game-videos`,
// `gameVideo`/`gameVideoName`): assets/catalog/game-videos/manifest.json plus the silent loops and
// preview frames that scripts/build-catalog.mjs generates with FFmpeg's own generative sources.
// The render loops a file and starts it at a random offset, so any length works; the manifest keeps
// the measured duration so the offset can be drawn without probing the file at render time.
import { CatalogError, checkPictureSize, defineCatalog, type CatalogItemBase } from './catalog-manifest.js';

export interface GameVideo extends CatalogItemBase {
  /** Seconds, measured with ffprobe. */
  duration: number;
  /** Picture size of the file (the render scales and crops it to the bottom half). */
  width: number;
  height: number;
}

const catalog = defineCatalog<GameVideo>('game-videos', 'gameVideos', checkGameVideo);

export const gameVideosDir = catalog.dir;
export const gameVideoCatalog = catalog.manifest;
export const findGameVideo = catalog.find;
export const randomGameVideo = catalog.random;
export const gameVideoFilePath = catalog.filePath;
export const gameVideoPreviewPath = catalog.previewPath;

function checkGameVideo(item: Record<string, unknown>, where: string): void {
  if (typeof item.duration !== 'number' || !(item.duration > 0)) throw new CatalogError(`${where} needs "duration" (seconds, > 0; ffprobe)`);
  checkPictureSize(item, where);
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
