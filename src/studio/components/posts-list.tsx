// The posts made from clips (GET /posts), newest first, filtered by status and platform. While any shown
// post is still to go out (scheduled or posting), the list refreshes every 5 s, only while the tab is seen.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Pagination, PostObject } from '../../api/types';
import { api, messageOf, v1 } from '../api';
import { POST_ERRORS, POST_STATUSES, PLATFORM_NAMES, PostStatusBadge, postStatusLabel, type Platform, type PostStatus } from './posts-common';
import { formatDateTime } from './list-status';

const LIMIT = 50;
const REFRESH_MS = 5000;

export function PostsList({ version }: { version: number }) {
  const [status, setStatus] = useState<PostStatus | ''>('');
  const [platform, setPlatform] = useState<Platform | ''>('');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ posts: PostObject[]; pagination: Pagination } | null>(null);
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');

  const load = useCallback(async () => {
    try {
      setData(await api.get<{ posts: PostObject[]; pagination: Pagination }>(v1('/posts'), { status: status || undefined, platform: platform || undefined, page, limit: LIMIT }));
      setError('');
    } catch (e) {
      setError(messageOf(e));
    }
  }, [status, platform, page]);

  useEffect(() => { void load(); }, [load, version]);

  const pending = data?.posts.some((p) => p.status === 'scheduled' || p.status === 'processing') ?? false;
  useEffect(() => {
    if (!pending) return;
    const tick = () => {
      if (document.visibilityState === 'visible') void load();
    };
    const t = setInterval(tick, REFRESH_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(t);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [pending, load]);

  const cancel = async (p: PostObject) => {
    if (!confirm(`Cancel the post "${p.title}" on @${p.account.handle}?`)) return;
    try {
      await api.del(v1(`/posts/${encodeURIComponent(p.id)}`));
      setMessage(`The post "${p.title}" was canceled.`);
      void load();
    } catch (e) {
      setMessage(`Could not cancel: ${messageOf(e)}`);
    }
  };

  const pages = data?.pagination.totalPages ?? 1;
  return (
    <section class="panel" aria-labelledby="posts-h">
      <h2 id="posts-h">Posts</h2>
      <div class="filters" role="group" aria-label="Filter posts">
        <label>
          <span id="posts-status-l">Status</span>
          <select aria-labelledby="posts-status-l" value={status} onChange={(e) => { setPage(1); setStatus(e.currentTarget.value as PostStatus | ''); }}>
            <option value="">All</option>
            {POST_STATUSES.map((s) => <option key={s} value={s}>{postStatusLabel(s)}</option>)}
          </select>
        </label>
        <label>
          <span id="posts-platform-l">Platform</span>
          <select aria-labelledby="posts-platform-l" value={platform} onChange={(e) => { setPage(1); setPlatform(e.currentTarget.value as Platform | ''); }}>
            <option value="">All</option>
            {(Object.keys(PLATFORM_NAMES) as Platform[]).map((p) => <option key={p} value={p}>{PLATFORM_NAMES[p]}</option>)}
          </select>
        </label>
        {pending && <p class="muted count">Refreshing every 5 s while posts are pending</p>}
      </div>
      {error && <p class="error" role="alert">Could not load the posts: {error} <button type="button" onClick={() => void load()}>Try again</button></p>}
      <p class="visually-hidden" role="status">{message}</p>
      {message && <p class="muted" aria-hidden="true">{message}</p>}
      {data === null && !error && <p class="muted" role="status">Loading…</p>}
      {data?.posts.length === 0 && (
        <p class="muted">{status || platform ? 'No post matches these filters.' : 'No posts yet. Schedule a clip above.'}</p>
      )}
      {data && data.posts.length > 0 && (
        <ul class="posts">
          {data.posts.map((p) => (
            <li key={p.id} class="post">
              <div class="post-head">
                <strong class="post-title">{p.title}</strong>
                <PostStatusBadge status={p.status} />
              </div>
              <p class="muted small">
                @{p.account.handle} on {PLATFORM_NAMES[p.platform]} · {p.source === 'automation' ? 'automation' : 'manual'} ·{' '}
                {p.publishedAt ? <>published {formatDateTime(p.publishedAt)}</> : <>{p.status === 'canceled' ? 'was due' : 'due'} {formatDateTime(p.scheduledAt)}</>}
              </p>
              {p.url && <p class="small"><a href={p.url} target="_blank" rel="noopener noreferrer">View on {PLATFORM_NAMES[p.platform]}<span class="visually-hidden"> (opens in a new tab)</span></a></p>}
              {p.status === 'failed' && (
                <div class="post-error">
                  <p>{POST_ERRORS[p.errorCode ?? 'unknown'] ?? POST_ERRORS.unknown}</p>
                  {p.error && <p class="muted small">Details: {p.error}</p>}
                </div>
              )}
              <p class="small">
                <a href={`/requests/${encodeURIComponent(p.requestId)}/clips/${encodeURIComponent(p.shortId)}`}>Open the clip</a>
                {p.status === 'scheduled' && (
                  <> · <button type="button" class="link" onClick={() => void cancel(p)} aria-label={`Cancel the post "${p.title}" on @${p.account.handle}`}>Cancel</button></>
                )}
              </p>
            </li>
          ))}
        </ul>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Posts pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
          <span>Page {page} of {pages}</span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </nav>
      )}
    </section>
  );
}
