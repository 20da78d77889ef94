// Public URLs of the catalogs' files: each item's preview image (spec 2.7/2.8 `preview`) and its media
// (music `url`, meme-hook and game-video `video`). `serve` answers
// GET /assets/catalog/<folder>/<name>/preview and GET /assets/catalog/<folder>/<name>/media with the
// item's own files. Addressing by the item's exact name (not by file path) means only files a manifest
// names can ever be served — the manifest reader already keeps those inside the catalog folder — and an
// operator's own item gets working URLs without any routing change. The catalog is the same for every
// account and holds nothing private, so these links are unsigned.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Catalog, CatalogItemBase } from './catalog-manifest.js';
import { gameVideoCatalog, gameVideoFilePath, gameVideoPreviewPath } from './game-videos.js';
import { memeHookCatalog, memeHookFilePath, memeHookPreviewPath } from './meme-hooks.js';
import { musicCatalog, musicFilePath, musicPreviewPath } from './music.js';

export const CATALOG_ASSETS = '/assets/catalog/';

// The items as GET /music, /meme-hooks and /game-videos list them (spec 2.6-2.8, plus the playable media
// that integrations of this API expect). Links are absolute: public URLs under /assets/catalog/ on a
// server, the files' file:// URLs in local mode.

export interface MusicTrackItem {
  /** Used exactly as `musicName`. */
  name: string;
  /** Seconds. */
  duration: number;
  /** The track's audio file. */
  url: string;
}

export interface MemeHookItem {
  /** Used exactly as `memeHookName`. */
  name: string;
  /** Preview image. */
  preview: string;
  /** The clip itself, as it is prepended to a short. */
  video: string;
  /** Seconds of picture the hook adds to a short (measured with ffprobe). */
  video_duration: number;
}

export interface GameVideoItem {
  /** Used exactly as `gameVideoName`. */
  name: string;
  /** Preview image. */
  preview: string;
  /** The gameplay loop itself (its sound is never used). */
  video: string;
  /** Seconds of the loop (measured with ffprobe). */
  video_duration: number;
}

/** Which of an item's files: its preview image or the media itself (audio for music, video otherwise). */
export type CatalogAssetKind = 'preview' | 'media';

type AssetCatalog = Pick<Catalog<CatalogItemBase>, 'manifest' | 'previewPath' | 'filePath'>;

/** URL folder -> catalog. The folder names are the catalogs' own folder names under assets/catalog. */
const CATALOGS: Record<string, AssetCatalog> = {
  music: { manifest: musicCatalog, previewPath: musicPreviewPath, filePath: musicFilePath },
  'game-videos': { manifest: gameVideoCatalog, previewPath: gameVideoPreviewPath, filePath: gameVideoFilePath },
  'meme-hooks': { manifest: memeHookCatalog, previewPath: memeHookPreviewPath, filePath: memeHookFilePath },
};

export type CatalogFolder = 'music' | 'game-videos' | 'meme-hooks';

const PREVIEW_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif' };

/**
 * Media types by extension: the shipped files (Opus in Ogg, RFC 7845; H.264/AAC in MP4) and what
 * operators commonly drop in. Browsers and players choose a decoder from this header, so a file is
 * labelled with what it is, never as a generic stream when we know better.
 */
export const MEDIA_TYPES: Record<string, string> = {
  '.opus': 'audio/ogg', '.ogg': 'audio/ogg', '.oga': 'audio/ogg', '.mp3': 'audio/mpeg', '.m4a': 'audio/mp4',
  '.aac': 'audio/aac', '.wav': 'audio/wav', '.flac': 'audio/flac',
  '.mp4': 'video/mp4', '.m4v': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm', '.mkv': 'video/x-matroska',
};

function catalogOf(folder: CatalogFolder): AssetCatalog {
  const catalog = CATALOGS[folder];
  if (!catalog) throw new RangeError(`no catalog folder ${folder}`);
  return catalog;
}

/**
 * The URL of a catalog item's preview or media: on a server `${base}/assets/catalog/<folder>/<name>/<kind>`;
 * without one (the local engine) the file's own file:// URL, which the CLI on this machine can open.
 */
export function catalogAssetUrl(folder: CatalogFolder, item: CatalogItemBase, kind: CatalogAssetKind, base: string | undefined): string {
  const catalog = catalogOf(folder);
  if (!base) return pathToFileURL(kind === 'preview' ? catalog.previewPath(item) : catalog.filePath(item)).href;
  return `${base.replace(/\/+$/, '')}${CATALOG_ASSETS}${folder}/${encodeURIComponent(item.name)}/${kind}`;
}

/**
 * The file behind a catalog asset URL path, or null (404) for anything else: an unknown folder or kind,
 * a name no manifest holds (exact, case-sensitive, percent-decoded once, so `..` or an encoded slash is
 * just a name that no item has), or a preview of a type we do not serve as an image.
 */
export function catalogAssetFile(pathname: string): { file: string; contentType: string } | null {
  if (!pathname.startsWith(CATALOG_ASSETS)) return null;
  const m = /^([a-z-]+)\/([^/]+)\/(preview|media)$/.exec(pathname.slice(CATALOG_ASSETS.length));
  if (!m) return null;
  const catalog = CATALOGS[m[1]!];
  if (!catalog) return null;
  let name: string;
  try {
    name = decodeURIComponent(m[2]!);
  } catch {
    return null;
  }
  const item = catalog.manifest().items.find((i) => i.name === name);
  if (!item) return null;
  if (m[3] === 'preview') {
    const file = catalog.previewPath(item);
    const contentType = PREVIEW_TYPES[path.extname(file).toLowerCase()];
    return contentType ? { file, contentType } : null;
  }
  const file = catalog.filePath(item);
  // An operator's file of a type not listed still plays in most players, which sniff the bytes: the
  // link the listing gives must work, so it is served as a plain byte stream rather than refused.
  return { file, contentType: MEDIA_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' };
}
