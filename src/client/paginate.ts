// Async iterators over the paginated lists (requests, posts and the three catalogs), for either client:
//
//   for await (const r of paginate(client, 'list', { status: 'completed' })) console.log(r.requestId);
//   for await (const page of pages(client, 'music', { limit: 50 })) console.log(page.pagination.page);
//
// Functions over a ShortsClient rather than methods on each client, so LocalClient, RemoteClient and any
// other ShortsClient page the same way. A page is fetched only when the loop asks for more: `break`
// stops fetching. The method is named rather than passed (`client.list` alone would lose its `this`).
import type { Pagination } from '../api/types.js';
import type { Query, ShortsClient } from './shorts-client.js';

/** The ShortsClient methods that answer one page of a list. */
export type PagedMethod = 'list' | 'posts' | 'music' | 'memeHooks' | 'gameVideos';

/** One page as `method` returns it: `{ requests | posts | items, pagination }`. */
export type PageOf<M extends PagedMethod> = Awaited<ReturnType<ShortsClient[M]>>;

type ItemsOf<P> = P extends { requests: (infer T)[] } ? T
  : P extends { posts: (infer T)[] } ? T
  : P extends { items: (infer T)[] } ? T
  : never;

/** One element of `method`'s pages: a RequestListItem, a PostObject or a catalog item. */
export type PageItem<M extends PagedMethod> = ItemsOf<PageOf<M>>;

/** The list's query (status, sortBy, limit, ...); numbers are sent as the API's query strings. */
export type PageQuery = Record<string, string | number | undefined>;

function itemsOf(page: unknown): unknown[] {
  const p = page as { requests?: unknown[]; posts?: unknown[]; items?: unknown[] };
  return p.requests ?? p.posts ?? p.items ?? [];
}

function asQuery(query: PageQuery): Query {
  const out: Query = {};
  for (const [k, v] of Object.entries(query)) out[k] = v === undefined ? undefined : String(v);
  return out;
}

/**
 * Every page of `method` from `query.page` (default 1) to the last one. Stops at the last page the
 * server reports, or at the first empty page (a list that shrank while it was being read).
 */
export async function* pages<M extends PagedMethod>(client: ShortsClient, method: M, query: PageQuery = {}): AsyncGenerator<PageOf<M>, void, undefined> {
  const first = query.page === undefined ? 1 : Number(query.page);
  if (!Number.isInteger(first) || first < 1) throw new RangeError(`page must be a whole number from 1, got ${String(query.page)}`);
  const fetchPage = client[method].bind(client) as (q: Query) => Promise<PageOf<M>>;
  for (let page = first; ; page++) {
    const answer = await fetchPage(asQuery({ ...query, page }));
    yield answer;
    const { totalPages } = (answer as { pagination: Pagination }).pagination;
    if (page >= totalPages || itemsOf(answer).length === 0) return;
  }
}

/** Every item of `method`'s pages, one at a time, in the order the server lists them. */
export async function* paginate<M extends PagedMethod>(client: ShortsClient, method: M, query: PageQuery = {}): AsyncGenerator<PageItem<M>, void, undefined> {
  for await (const page of pages(client, method, query)) {
    for (const item of itemsOf(page)) yield item as PageItem<M>;
  }
}
