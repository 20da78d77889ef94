// The requests list (the studio's home): every request of the account, newest first, filtered and sorted
// through the URL (?status=&sort=) so a filtered list can be bookmarked and Back restores it. Pages of 100
// (the API's largest) load as the rows come into view, and only the rows on screen are rendered, so an
// account with thousands of requests scrolls smoothly. Live rows on screen follow their progress.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { Pagination } from '../../api/types';
import { api, messageOf, v1 } from '../api';
import { isTerminal, watchMany, type LiveStatus } from '../live';
import { usePageTitle } from '../page-title';
import { ListWindow } from '../components/list-window';
import { RequestStatusBadge, Time, requestStatusLabel, type StudioListItem } from '../components/list-status';

/** The API's largest page (src/service/list-query.ts). */
const PAGE = 100;
const ROW_HEIGHT = 68;
const STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
const SORTS = {
  newest: { label: 'Newest first', sortBy: 'createdAt', sortOrder: 'desc' },
  oldest: { label: 'Oldest first', sortBy: 'createdAt', sortOrder: 'asc' },
  updated: { label: 'Recently updated', sortBy: 'updatedAt', sortOrder: 'desc' },
} as const;
type SortKey = keyof typeof SORTS;
type Status = (typeof STATUSES)[number];
const MADE_IN = { api: 'API', studio: 'Studio', local: 'Local' } as const;

interface ListPage { requests: StudioListItem[]; pagination: Pagination }

export function Requests() {
  usePageTitle('Requests');
  const { query, route } = useLocation();
  const status = (STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as Status) : undefined;
  const sort: SortKey = query.sort && query.sort in SORTS ? (query.sort as SortKey) : 'newest';

  const [total, setTotal] = useState<number | null>(null);
  const [pages, setPages] = useState<Map<number, StudioListItem[]>>(new Map());
  const [live, setLive] = useState<Map<string, LiveStatus>>(new Map());
  const [error, setError] = useState('');
  const [now, setNow] = useState(Date.now());
  const loading = useRef(new Set<number>());
  const generation = useRef(0);
  const [watched, setWatched] = useState('');

  const load = useCallback(async (page: number, gen: number) => {
    if (loading.current.has(page)) return;
    loading.current.add(page);
    try {
      const res = await api.get<ListPage>(v1('/shorts'), { page, limit: PAGE, status, sortBy: SORTS[sort].sortBy, sortOrder: SORTS[sort].sortOrder });
      if (gen !== generation.current) return;
      setTotal(res.pagination.totalCount);
      setPages((m) => new Map(m).set(page, res.requests));
      setError('');
    } catch (e) {
      if (gen === generation.current) setError(messageOf(e));
    } finally {
      if (gen === generation.current) loading.current.delete(page);
    }
  }, [status, sort]);

  // A new filter or sort starts over from page 1.
  useEffect(() => {
    const gen = ++generation.current;
    loading.current = new Set();
    setPages(new Map());
    setTotal(null);
    setLive(new Map());
    void load(1, gen);
  }, [load]);

  // Relative times stay true while the page is open.
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(t);
  }, []);

  const itemAt = (i: number): StudioListItem | undefined => pages.get(Math.floor(i / PAGE) + 1)?.[i % PAGE];

  // Rows in view: load their pages, and note which are live (watched below, debounced while scrolling).
  const range = useRef<[number, number]>([0, 0]);
  const onRange = useCallback((start: number, end: number) => {
    range.current = [start, end];
    const gen = generation.current;
    for (let p = Math.floor(start / PAGE) + 1; p <= Math.floor(Math.max(start, end - 1) / PAGE) + 1; p++) {
      if (!pages.has(p)) void load(p, gen);
    }
    const ids: string[] = [];
    for (let i = start; i < end; i++) {
      const it = itemAt(i);
      const st = it && (live.get(it.requestId)?.status ?? it.status);
      if (it && st && !isTerminal(st)) ids.push(it.requestId);
    }
    setWatched(ids.sort().join(','));
  }, [pages, live, load]);

  useEffect(() => {
    onRange(range.current[0], range.current[1]);
  }, [pages]);

  useEffect(() => {
    if (!watched) return;
    let stop = () => {};
    const t = setTimeout(() => {
      stop = watchMany(watched.split(','), (s) => setLive((m) => new Map(m).set(s._id, s)));
    }, 250);
    return () => {
      clearTimeout(t);
      stop();
    };
  }, [watched]);

  const setQuery = (next: { status?: string; sort?: string }) => {
    const params = new URLSearchParams();
    const st = 'status' in next ? next.status : status;
    const so = 'sort' in next ? next.sort : sort;
    if (st) params.set('status', st);
    if (so && so !== 'newest') params.set('sort', so);
    const qs = params.toString();
    route(qs ? `/?${qs}` : '/', true);
  };

  const renderRow = (i: number) => {
    const it = itemAt(i);
    if (!it) return <div class="req-row req-skeleton" aria-busy="true"><span class="muted">Loading…</span></div>;
    const l = live.get(it.requestId);
    const st = l?.status ?? it.status;
    const progress = l?.progress ?? it.progress;
    const name = it.title || it.url || it.requestId;
    return (
      <a class="req-row" href={`/requests/${encodeURIComponent(it.requestId)}`}>
        <span class="req-main">
          <span class="req-title">{name}</span>
          {it.title && <span class="req-url muted">{it.url}</span>}
        </span>
        <span class="req-meta">
          <RequestStatusBadge status={st} />
          {!isTerminal(st) && (
            <progress max={100} value={progress} aria-label={`${requestStatusLabel(st)}: ${Math.round(progress)}%`}>{Math.round(progress)}%</progress>
          )}
          <span class="muted"><Time iso={it.createdAt} now={now} /></span>
          {it.createdIn && <span class="made-in" title={`Made in the ${MADE_IN[it.createdIn]}`}>{MADE_IN[it.createdIn]}</span>}
        </span>
      </a>
    );
  };

  return (
    <section class="page requests">
      <div class="page-head">
        <h1>Requests</h1>
        <a class="button primary" href="/new">New request</a>
      </div>
      <div class="filters" role="group" aria-label="Filter and sort">
        <label>
          <span id="req-status-l">Status</span>
          <select aria-labelledby="req-status-l" value={status ?? ''} onChange={(e) => setQuery({ status: e.currentTarget.value || undefined })}>
            <option value="">All</option>
            {STATUSES.map((s) => <option key={s} value={s}>{requestStatusLabel(s)}</option>)}
          </select>
        </label>
        <label>
          <span id="req-sort-l">Sort</span>
          <select aria-labelledby="req-sort-l" value={sort} onChange={(e) => setQuery({ sort: e.currentTarget.value })}>
            {(Object.keys(SORTS) as SortKey[]).map((k) => <option key={k} value={k}>{SORTS[k].label}</option>)}
          </select>
        </label>
        <p class="muted count" role="status">{total === null ? '' : `${total} request${total === 1 ? '' : 's'}`}</p>
      </div>
      {error && (
        <div class="error" role="alert">
          Could not load your requests: {error}{' '}
          <button type="button" onClick={() => { const gen = ++generation.current; loading.current = new Set(); void load(1, gen); }}>Try again</button>
        </div>
      )}
      {total === null && !error && <p class="loading" role="status">Loading your requests…</p>}
      {total === 0 && (
        <div class="empty">
          {status ? (
            <>
              <p>No {requestStatusLabel(status).toLowerCase()} requests.</p>
              <button type="button" onClick={() => setQuery({ status: undefined })}>Show all requests</button>
            </>
          ) : (
            <>
              <p>No requests yet. Give the studio a long video (a link or a file) and it cuts it into captioned vertical clips.</p>
              <a class="button primary" href="/new">Make your first request</a>
            </>
          )}
        </div>
      )}
      {total !== null && total > 0 && <ListWindow count={total} rowHeight={ROW_HEIGHT} label="Requests" renderRow={renderRow} onRange={onRange} />}
    </section>
  );
}
