// templates, music, meme-hooks, game-videos.
import type { GameVideoItem, MemeHookItem, MusicTrackItem, Query, ShortsClient } from '../../client/shorts-client.js';
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
  // The media link is what a person opens to hear or watch an item before choosing it; the preview
  // image stays in --json, one wide column per row is as much as a terminal table holds.
  else if (kind === 'music') printTable(['name', 'duration (s)', 'url'], (r.items as MusicTrackItem[]).map((i) => [i.name, i.duration, i.url]));
  else printTable(['name', 'length (s)', 'video'], (r.items as (MemeHookItem | GameVideoItem)[]).map((i) => [i.name, i.video_duration, i.video]));
  printPagination(r.pagination);
  return EXIT.ok;
}
