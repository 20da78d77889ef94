// The background-music catalog (GET /music, `shorts music`): assets/catalog/music/manifest.json plus
// the audio files and waveform previews that scripts/build-catalog.mjs makes from Debian's free
// game-music packages. Each track carries its measured integrated loudness, so the mix can set the
// music relative to the voice without measuring the track at render time.
import { CatalogError, defineCatalog, type CatalogItemBase } from './catalog-manifest.js';

export interface MusicTrack extends CatalogItemBase {
  /** Seconds, measured with ffprobe. */
  duration: number;
  /** Integrated loudness (EBU R128) of the file, LUFS. */
  loudnessLufs: number;
}

const catalog = defineCatalog<MusicTrack>('music', 'music', checkTrack);

export const musicDir = catalog.dir;
export const musicCatalog = catalog.manifest;
export const findMusic = catalog.find;
export const randomMusic = catalog.random;
export const musicFilePath = catalog.filePath;
export const musicPreviewPath = catalog.previewPath;

function checkTrack(item: Record<string, unknown>, where: string): void {
  if (typeof item.duration !== 'number' || !(item.duration > 0)) throw new CatalogError(`${where} needs "duration" (seconds, > 0; ffprobe)`);
  if (typeof item.loudnessLufs !== 'number' || !(item.loudnessLufs < 0 && item.loudnessLufs > -70))
    throw new CatalogError(`${where} needs "loudnessLufs" (integrated loudness, e.g. from ffmpeg -af ebur128)`);
}
