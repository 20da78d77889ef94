// Public URLs of the catalogs' preview images (spec 2.7/2.8 `preview`): `serve` answers
// GET /assets/catalog/<folder>/<name>/preview with the item's preview file. Addressing by the item's
// exact name (not by file path) means only files a manifest names as previews can ever be served —
// the manifest reader already keeps those inside the catalog folder — and an operator's own item gets
// a working URL without any routing change.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Catalog, CatalogItemBase } from './catalog-manifest.js';
import { gameVideoCatalog, gameVideoPreviewPath } from './game-videos.js';
import { memeHookCatalog, memeHookPreviewPath } from './meme-hooks.js';
import { musicCatalog, musicPreviewPath } from './music.js';

export const CATALOG_ASSETS = '/assets/catalog/';

type PreviewCatalog = Pick<Catalog<CatalogItemBase>, 'manifest' | 'previewPath'>;

/** URL folder -> catalog. The folder names are the catalogs' own folder names under assets/catalog. */
const CATALOGS: Record<string, PreviewCatalog> = {
  music: { manifest: musicCatalog, previewPath: musicPreviewPath },
  'game-videos': { manifest: gameVideoCatalog, previewPath: gameVideoPreviewPath },
  'meme-hooks': { manifest: memeHookCatalog, previewPath: memeHookPreviewPath },
};

export type CatalogFolder = keyof typeof CATALOGS;

const CONTENT_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif' };

/**
 * The preview URL of a catalog item: on a server `${base}/assets/catalog/<folder>/<name>/preview`;
 * without one (the local engine) the file's own file:// URL, which the CLI on this machine can open.
 */
export function catalogPreviewUrl(folder: CatalogFolder, item: CatalogItemBase, base: string | undefined): string {
  const catalog = CATALOGS[folder];
  if (!catalog) throw new RangeError(`no catalog folder ${folder}`);
  if (!base) return pathToFileURL(catalog.previewPath(item)).href;
  return `${base.replace(/\/+$/, '')}${CATALOG_ASSETS}${folder}/${encodeURIComponent(item.name)}/preview`;
}

/**
 * The file behind a preview URL path, or null (404) for anything else: an unknown folder, a name no
 * manifest holds (exact, case-sensitive, percent-decoded once), or a preview of a type we do not serve.
 */
export function catalogPreviewFile(pathname: string): { file: string; contentType: string } | null {
  if (!pathname.startsWith(CATALOG_ASSETS)) return null;
  const m = /^([a-z-]+)\/([^/]+)\/preview$/.exec(pathname.slice(CATALOG_ASSETS.length));
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
  const file = catalog.previewPath(item);
  const contentType = CONTENT_TYPES[path.extname(file).toLowerCase()];
  return contentType ? { file, contentType } : null;
}
