// Posts: the connected accounts, scheduling a clip on one (from /posts?short=<shortId>[&request=<id>], the
// review view's link, or picked here) and the posts made so far. Loaded lazily.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, messageOf, v1 } from '../api';
import { usePageTitle } from '../page-title';
import type { ConnectedAccount } from '../components/posts-common';
import { PostsAccounts } from '../components/posts-accounts';
import { PostsSchedule } from '../components/posts-schedule';
import { PostsList } from '../components/posts-list';

export function Posts() {
  usePageTitle('Posts');
  const { query } = useLocation();
  const [accounts, setAccounts] = useState<ConnectedAccount[] | null>(null);
  const [accountsError, setAccountsError] = useState('');
  const [version, setVersion] = useState(0);

  const loadAccounts = useCallback(() => {
    api.get<{ accounts: ConnectedAccount[] }>(v1('/accounts')).then(
      (r) => { setAccounts(r.accounts); setAccountsError(''); },
      (e) => setAccountsError(messageOf(e)),
    );
  }, []);
  useEffect(loadAccounts, []);

  return (
    <section class="page posts-page">
      <h1>Posts</h1>
      <div class="posts-grid">
        <div class="posts-side">
          <PostsSchedule accounts={accounts} initialShort={query.short} initialRequest={query.request} onScheduled={() => setVersion((v) => v + 1)} />
          <PostsAccounts accounts={accounts} error={accountsError} reload={() => { loadAccounts(); setVersion((v) => v + 1); }} />
        </div>
        <PostsList version={version} />
      </div>
    </section>
  );
}
