// Sign in with an API key (POST /studio/session). The key goes to the server once, in the body of that POST;
// the server answers with an HttpOnly session cookie, so nothing the page's scripts can read keeps the key.
// Loaded with the shell (it is where a signed-out visit lands), so it stays small.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, messageOf } from '../api';
import { useSession } from '../session';

/** Where to go after signing in: only a path of this site (one leading slash, not `//host` or `/\host`). */
export function safeNext(raw: string | undefined): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || raw.startsWith('/sign-in')) return '/';
  return raw;
}

export function SignIn() {
  const { query, route } = useLocation();
  const { session, refresh } = useSession();
  const [key, setKey] = useState('');
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const next = safeNext(query.next);

  // Already signed in (or the local studio, which never needs a key): straight on.
  useEffect(() => {
    if (session) route(next, true);
  }, [session]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const apiKey = key.trim();
    if (!apiKey) {
      setError('Enter your API key.');
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError('');
    try {
      await api.post('/studio/session', { apiKey });
      setKey('');
      // The effect above goes on once the shell holds the new session.
      await refresh();
    } catch (err) {
      setError(messageOf(err));
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page sign-in">
      <h1>Sign in to the studio</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <label for="api-key">API key</label>
        <div class="key-row">
          <input
            id="api-key" ref={input} type={show ? 'text' : 'password'} name="apiKey" autocomplete="off" spellcheck={false}
            autocapitalize="off" placeholder="sk_live_…" value={key} aria-describedby="key-help" aria-invalid={error ? true : undefined}
            aria-errormessage={error ? 'sign-in-error' : undefined} onInput={(e) => setKey(e.currentTarget.value)}
          />
          <button type="button" aria-pressed={show} onClick={() => setShow(!show)}>{show ? 'Hide' : 'Show'}<span class="visually-hidden"> key</span></button>
        </div>
        <p id="key-help" class="muted">
          A key comes from whoever runs this server: <code>shorts keys create</code> prints a new one (it is shown once).
          The key is sent to the server only to start a session; this browser keeps no copy of it.
        </p>
        <p id="sign-in-error" class="error" role="alert">{error}</p>
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </section>
  );
}
