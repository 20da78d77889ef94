// The meme-hook catalog (GET /meme-hooks, `shorts meme-hooks`, `memeHook`/`memeHookName`):
// assets/catalog/meme-hooks/manifest.json plus the short intro clips and preview frames that
// scripts/build-catalog.mjs makes from Debian sound effects and pictures and the project's fonts.
// The render plays a hook full-frame before the short, so the manifest keeps its measured length:
// the short's duration is known without probing the file.
import { CatalogError, checkPictureSize, defineCatalog, type CatalogItemBase } from './catalog-manifest.js';

export interface MemeHook extends CatalogItemBase {
  /** Seconds, measured with ffprobe (the picture's length); the render plays exactly this long. */
  duration: number;
  /** Picture size of the file (the render scales and crops it to cover the output frame). */
  width: number;
  height: number;
}

/** Spec 2.7: "typically 2-5 seconds". Longer intros lose viewers, so the catalog refuses them. */
export const MEME_HOOK_MAX_SECONDS = 10;

const catalog = defineCatalog<MemeHook>('meme-hooks', 'memeHooks', checkMemeHook);

export const memeHooksDir = catalog.dir;
export const memeHookCatalog = catalog.manifest;
export const findMemeHook = catalog.find;
export const randomMemeHook = catalog.random;
export const memeHookFilePath = catalog.filePath;
export const memeHookPreviewPath = catalog.previewPath;

function checkMemeHook(item: Record<string, unknown>, where: string): void {
  const d = item.duration;
  if (typeof d !== 'number' || !(d > 0 && d <= MEME_HOOK_MAX_SECONDS))
    throw new CatalogError(`${where} needs "duration" (seconds, > 0 and <= ${MEME_HOOK_MAX_SECONDS}; ffprobe)`);
  checkPictureSize(item, where);
}

/**
 * The hook of one clip when the request names none: drawn at random per clip, so the shorts of one
 * request do not all open the same way, but seeded by the clip's id, so a retried job (which skips
 * clips already rendered) reports the same hook, and so the same duration, for every clip.
 */
export function memeHookForClip(clipId: string): MemeHook | undefined {
  return randomMemeHook(() => seededFraction(clipId));
}

/** A fraction in [0, 1) from a string (FNV-1a, 32 bits): stable across runs and machines. */
export function seededFraction(seed: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}
