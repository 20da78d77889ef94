// Connected accounts: the platform accounts this API account can post to. Connecting runs the server's
// OAuth flow (POST /accounts/connect answers the platform's consent URL, opened in a new tab; the server's
// confirmation page then asks for this account's API key); removing cancels the account's scheduled posts.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, v1 } from '../api';
import { PLATFORM_NAMES, type ConnectedAccount, type Platform } from './posts-common';
import { formatDateTime } from './list-status';

interface ConnectAnswer { platform: Platform; authorizationUrl: string; redirectUri: string; expiresAt: string }

export function PostsAccounts({ accounts, error, reload }: { accounts: ConnectedAccount[] | null; error: string; reload: () => void }) {
  const [platform, setPlatform] = useState<Platform>('video_site');
  const [consent, setConsent] = useState<ConnectAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  // Back from the consent tab: the new account shows up without a manual refresh.
  useEffect(() => {
    if (!consent) return;
    const onVisible = () => {
      if (document.visibilityState === 'visible') reload();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [consent, reload]);

  const connect = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      setConsent(await api.post<ConnectAnswer>(v1('/accounts/connect'), { platform }));
    } catch (err) {
      setMessage({ ok: false, text: messageOf(err) });
    } finally {
      setBusy(false);
    }
  };

  const remove = async (a: ConnectedAccount) => {
    if (!confirm(`Disconnect @${a.handle} on ${PLATFORM_NAMES[a.platform]}? Its scheduled posts are canceled.`)) return;
    try {
      const r = await api.del<{ canceledPosts?: number }>(v1(`/accounts/${encodeURIComponent(a.id)}`));
      const n = r.canceledPosts ?? 0;
      setMessage({ ok: true, text: `@${a.handle} was disconnected${n ? `; ${n} scheduled post${n === 1 ? ' was' : 's were'} canceled` : ''}.` });
      reload();
    } catch (err) {
      setMessage({ ok: false, text: messageOf(err) });
    }
  };

  return (
    <section class="panel" aria-labelledby="accounts-h">
      <h2 id="accounts-h">Connected accounts</h2>
      {error && <p class="error" role="alert">Could not load the accounts: {error}</p>}
      {accounts === null && !error && <p class="muted" role="status">Loading…</p>}
      {accounts?.length === 0 && <p class="muted">No account is connected yet. Connect one to post clips to it.</p>}
      {accounts && accounts.length > 0 && (
        <ul class="accounts">
          {accounts.map((a) => (
            <li key={a.id}>
              <span class="acct-name"><strong>@{a.handle}</strong> <span class="muted">on {PLATFORM_NAMES[a.platform]}</span></span>
              {a.status === 'expired'
                ? <span class="badge badge-failed"><span class="badge-icon" aria-hidden="true">!</span>Needs reconnecting</span>
                : <span class="muted small">connected {formatDateTime(a.createdAt)}</span>}
              <button type="button" class="danger" onClick={() => void remove(a)} aria-label={`Disconnect @${a.handle} on ${PLATFORM_NAMES[a.platform]}`}>Disconnect</button>
            </li>
          ))}
        </ul>
      )}
      <form class="connect" onSubmit={(e) => void connect(e)}>
        <label>
          <span id="connect-platform-l">Platform</span>
          <select aria-labelledby="connect-platform-l" value={platform} onChange={(e) => { setPlatform(e.currentTarget.value as Platform); setConsent(null); }}>
            {(Object.keys(PLATFORM_NAMES) as Platform[]).map((p) => <option key={p} value={p}>{PLATFORM_NAMES[p]}</option>)}
          </select>
        </label>
        <button type="submit" disabled={busy}>{busy ? 'Starting…' : 'Connect an account'}</button>
      </form>
      {consent && (
        <div class="consent" role="status">
          <p>
            <a href={consent.authorizationUrl} target="_blank" rel="noopener noreferrer">Open the {PLATFORM_NAMES[consent.platform]} consent page</a>{' '}
            (new tab; the link works until {formatDateTime(consent.expiresAt)}). After you approve, this server's page asks for your API key to
            confirm; then come back here.
          </p>
          <button type="button" onClick={reload}>Refresh the accounts</button>
        </div>
      )}
      {message && <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>{message.text}</p>}
    </section>
  );
}
