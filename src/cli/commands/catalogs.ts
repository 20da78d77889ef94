// templates, music, meme-hooks, game-videos, posts.
import type { Query, ShortsClient } from '../../client/shorts-client.js';
import { EXIT } from '../cli-error.js';
import { note, printJson, printPagination, printTable } from '../output.js';

interface PageFlags { json?: boolean; page?: string; limit?: string }

export async function templatesCommand(client: ShortsClient, flags: { json?: boolean }): Promise<number> {
  const t = await client.templates();
  if (flags.json) {
    printJson(t);
    return EXIT.ok;
  }
  // The animated preview shows the style in motion: the one image worth opening before choosing.
  printTable(['templateId', 'name', 'display name', 'default', 'preview (GIF)'], t.templates.map((x) => [
    x.templateId, x.name, x.displayName, x.templateId === t.defaultTemplateId ? 'yes' : '', x.gif,
  ]));
  return EXIT.ok;
}

export async function catalogCommand(client: ShortsClient, kind: 'music' | 'memeHooks' | 'gameVideos', flags: PageFlags): Promise<number> {
  const q: Query = { page: flags.page, limit: flags.limit };
  const r = kind === 'music' ? await client.music(q) : kind === 'memeHooks' ? await client.memeHooks(q) : await client.gameVideos(q);
  if (flags.json) {
    printJson({ data: { [kind]: r.items, pagination: r.pagination } });
    return EXIT.ok;
  }
  if (r.items.length === 0) note(`the ${kind === 'music' ? 'music' : kind === 'memeHooks' ? 'meme hook' : 'game video'} catalog is empty`);
  else printTable(['name', kind === 'music' ? 'duration (s)' : 'preview'], r.items.map((i) => [i.name, 'duration' in i ? i.duration : (i as { preview?: string }).preview]));
  printPagination(r.pagination);
  return EXIT.ok;
}

export async function postsCommand(client: ShortsClient, flags: PageFlags & Query): Promise<number> {
  const q: Query = {};
  for (const k of ['page', 'limit', 'status', 'platform', 'source', 'requestId', 'shortId', 'since', 'until', 'date'] as const) q[k] = flags[k];
  const r = await client.posts(q);
  if (flags.json) {
    printJson({ data: r });
    return EXIT.ok;
  }
  printTable(['id', 'platform', 'status', 'scheduled', 'published', 'url', 'title'], r.posts.map((p) => [
    p.id, p.platform, p.status, p.scheduledAt, p.publishedAt, p.url, p.title,
  ]));
  printPagination(r.pagination);
  return EXIT.ok;
}
