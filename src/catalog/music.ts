// The background-music catalog (GET /music, `shorts music`): assets/catalog/music/manifest.json plus
// the audio files and waveform previews that scripts/build-catalog.mjs makes from Debian's free
// game-music packages. Each track carries its measured integrated loudness, so the mix can set the
// music relative to the voice without measuring the track at render time.
import path from 'node:path';
import { CatalogError, catalogRoot, readManifest, type CatalogItemBase, type CatalogManifest } from './catalog-manifest.js';

export interface MusicTrack extends CatalogItemBase {
  /** Seconds, measured with ffprobe. */
  duration: number;
  /** Integrated loudness (EBU R128) of the file, LUFS. */
  loudnessLufs: number;
}

export function musicDir(): string {
  return path.join(catalogRoot(), 'music');
}

let cached: { dir: string; manifest: CatalogManifest<MusicTrack> } | null = null;

/** The catalog, read once per folder (the manifest is read at startup; operators restart to add tracks). */
export function musicCatalog(): CatalogManifest<MusicTrack> {
  const dir = musicDir();
  if (cached?.dir !== dir) cached = { dir, manifest: readManifest<MusicTrack>(dir, 'music', checkTrack) };
  return cached.manifest;
}

function checkTrack(item: Record<string, unknown>, where: string): void {
  if (typeof item.duration !== 'number' || !(item.duration > 0)) throw new CatalogError(`${where} needs "duration" (seconds, > 0; ffprobe)`);
  if (typeof item.loudnessLufs !== 'number' || !(item.loudnessLufs < 0 && item.loudnessLufs > -70))
    throw new CatalogError(`${where} needs "loudnessLufs" (integrated loudness, e.g. from ffmpeg -af ebur128)`);
}

/** Exact, case-sensitive lookup, as the spec asks for names. */
export function findMusic(name: string): MusicTrack | undefined {
  return musicCatalog().items.find((t) => t.name === name);
}

export function musicFilePath(track: MusicTrack): string {
  return path.resolve(musicDir(), track.file);
}

export function musicPreviewPath(track: MusicTrack): string {
  return path.resolve(musicDir(), track.preview);
}

/** A track chosen at random (musicName omitted); `random` is injectable so tests are repeatable. */
export function randomMusic(random: () => number = Math.random): MusicTrack | undefined {
  const items = musicCatalog().items;
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))];
}
