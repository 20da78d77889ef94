// The studio's entry: the shell (header, navigation, sign-in gate) and the routes. The heavier views are
// lazy chunks, so the first load carries only the shell, the sign-in form and the list.
import { render, Component, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { LocationProvider, Router, Route, lazy, useLocation } from 'preact-iso';
import { api, whenSignedOut } from './api';
import { SessionContext, fetchSession, type Session } from './session';
import { setPageTitle, usePageTitle } from './page-title';
import { SignIn } from './views/sign-in';
import { Requests } from './views/requests';
import './styles.css';

const Create = lazy(() => import('./views/create').then((m) => m.Create));
const RequestView = lazy(() => import('./views/request').then((m) => m.RequestView));
const ClipEditor = lazy(() => import('./views/clip-editor').then((m) => m.ClipEditor));
const Posts = lazy(() => import('./views/posts').then((m) => m.Posts));

/** The title a view gets until it sets a better one (set during render, so a view's own title, set in its effect, wins). */
function fallbackTitle(path: string): string {
  if (path === '/') return 'Requests';
  if (path === '/new') return 'New request';
  if (path === '/posts') return 'Posts';
  if (path === '/sign-in') return 'Sign in';
  if (/^\/requests\/[^/]+\/clips\/[^/]+$/.test(path)) return 'Clip';
  if (/^\/requests\/[^/]+$/.test(path)) return 'Request';
  return 'Not found';
}

/**
 * After a route change, focus goes to the new page's heading (or main while a lazy view loads), so keyboard
 * and screen-reader users start at the new content instead of the link they followed. Not on the first
 * load: the browser's own start is right there.
 */
function focusPage(): void {
  requestAnimationFrame(() => {
    const main = document.getElementById('main');
    const h1 = main?.querySelector('h1');
    if (h1) {
      if (!h1.hasAttribute('tabindex')) h1.setAttribute('tabindex', '-1');
      h1.focus();
    } else {
      main?.focus();
    }
  });
}

class Crash extends Component<{ resetKey: string; children?: ComponentChildren }, { error: unknown }> {
  override state = { error: undefined as unknown };
  static override getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidUpdate(prev: { resetKey: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error !== undefined) this.setState({ error: undefined });
  }
  override render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <section class="page" role="alert">
        <h1>Something went wrong</h1>
        <p>This page stopped working: {this.state.error instanceof Error ? this.state.error.message : String(this.state.error)}</p>
        <p>Your requests and clips are safe on the server. <button type="button" onClick={() => location.reload()}>Reload the page</button> or <a href="/">go back to your requests</a>.</p>
      </section>
    );
  }
}

function Shell() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path, route } = useLocation();
  const titledPath = useRef('');
  const focusedPath = useRef<string | null>(null);
  const navigated = useRef(false);
  const refresh = async () => setSession(await fetchSession());
  const signOut = async () => {
    await api.del('/studio/session').catch(() => {});
    setSession(null);
    route('/sign-in');
  };
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    void refresh();
  }, []);
  useEffect(() => {
    // The benchmark's time to interactive (scripts/bench-studio.mjs): the first frame after the session is
    // known and the first view has rendered with its controls.
    const showing = session !== undefined && !(session === null && path !== '/sign-in');
    if (showing && performance.getEntriesByName('studio-interactive').length === 0) {
      requestAnimationFrame(() => performance.mark('studio-interactive'));
    }
  }, [session, path]);
  useEffect(() => {
    if (session === null && path !== '/sign-in') route(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, true);
  }, [session, path]);
  if (titledPath.current !== path) {
    titledPath.current = path;
    setPageTitle(fallbackTitle(path));
  }
  const routeChanged = () => {
    if (focusedPath.current !== null && focusedPath.current !== location.pathname) {
      navigated.current = true;
      focusPage();
    }
    focusedPath.current = location.pathname;
  };
  // A lazy view's heading arrives after the route change: focus it then (not on the first load).
  const loaded = () => {
    if (navigated.current) focusPage();
  };

  // Signed out on another page: nothing of that page renders (its first fetch would only earn a 401) until the
  // redirect to /sign-in has happened.
  if (session === undefined || (session === null && path !== '/sign-in')) return <p class="loading" role="status">Loading…</p>;
  const nav = (href: string, label: string) => (
    <a href={href} aria-current={path === href || (href === '/' && path.startsWith('/requests/')) || (href !== '/' && path.startsWith(href)) ? 'page' : undefined}>{label}</a>
  );
  return (
    <SessionContext.Provider value={{ session, refresh, signOut }}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="/" aria-label="shortwright studio, home">
          <svg class="logo" viewBox="0 0 16 16" width="18" height="18" aria-hidden="true"><rect x="4" y="1" width="8" height="14" rx="2" /><path d="M7 5.5v5l4-2.5z" /></svg>
          shortwright <span>studio</span>
        </a>
        {session && (
          <nav aria-label="Main">
            {nav('/', 'Requests')}
            {nav('/new', 'New')}
            {nav('/posts', 'Posts')}
          </nav>
        )}
        {session && (
          <div class="who">
            <span class="email" title={session.email}>
              {session.local ? 'Local studio' : <>Signed in as <strong>{session.email}</strong></>}
            </span>
            {session.credits !== null && <span class="credits">{session.credits} credit{session.credits === 1 ? '' : 's'}</span>}
            {!session.local && <button type="button" class="link" onClick={() => void signOut()}>Sign out</button>}
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <Crash resetKey={path}>
          <Router onRouteChange={routeChanged} onLoadEnd={loaded}>
            <Route path="/sign-in" component={SignIn} />
            <Route path="/" component={Requests} />
            <Route path="/new" component={Create} />
            <Route path="/requests/:id" component={RequestView} />
            <Route path="/requests/:id/clips/:shortId" component={ClipEditor} />
            <Route path="/posts" component={Posts} />
            <Route default component={NotFound} />
          </Router>
        </Crash>
      </main>
    </SessionContext.Provider>
  );
}

function NotFound() {
  usePageTitle('Not found');
  return (
    <section class="page">
      <h1>Page not found</h1>
      <p>Nothing lives at <code>{location.pathname}</code>. The link may be old or mistyped.</p>
      <p><a href="/">Back to your requests</a> · <a href="/new">Make a new request</a></p>
    </section>
  );
}

render(
  <LocationProvider>
    <Shell />
  </LocationProvider>,
  document.getElementById('app')!,
);
