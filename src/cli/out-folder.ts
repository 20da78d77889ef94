// The `--out` folder shared by `create` and `batch`: the finished clips and their covers downloaded under
// numbered, readable names, and request.json shaped like GET /shorts/:id but pointing at the folder's copies.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ShortsClient } from '../client/shorts-client.js';
import type { RequestDetail } from '../api/types.js';

/** Writes the clips, covers and request.json of a finished request into `out`; returns the detail as written. */
export async function writeOutFolder(client: ShortsClient, detail: RequestDetail, out: string): Promise<RequestDetail> {
  await mkdir(out, { recursive: true });
  const shorts = [];
  for (const [i, s] of detail.shorts.entries()) {
    if (s.error || !s.video_url) { shorts.push(s); continue; }
    const file = path.join(out, `${String(i + 1).padStart(2, '0')}-${slug(s.title)}.mp4`);
    await client.downloadClip(s.video_url, file);
    // The cover travels with its clip, under the same name: request.json points at the folder's copies.
    const cover = s.thumbnail_url ? file.replace(/\.mp4$/, '.jpg') : null;
    if (cover) await client.downloadClip(s.thumbnail_url!, cover);
    shorts.push({ ...s, video_url: pathToFileURL(file).href, ...(cover ? { thumbnail_url: pathToFileURL(cover).href } : {}) });
  }
  const written = { ...detail, shorts };
  await writeFile(path.join(out, 'request.json'), `${JSON.stringify(written, null, 2)}\n`);
  return written;
}

/** A file-name-safe form of a title: lower case, dashes, at most 48 characters ("clip" when nothing is left). */
export function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48) || 'clip';
}
