// The studio's entry: the shell (header, navigation, sign-in gate) and the routes. The heavier views are
// lazy chunks, so the first load carries only the shell and the list.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Router, Route, lazy, ErrorBoundary, useLocation } from 'preact-iso';
import { api, whenSignedOut } from './api';
import { SessionContext, fetchSession, type Session } from './session';
import { SignIn } from './views/sign-in';
import { Requests } from './views/requests';
import './styles.css';

const Create = lazy(() => import('./views/create').then((m) => m.Create));
const RequestView = lazy(() => import('./views/request').then((m) => m.RequestView));
const ClipEditor = lazy(() => import('./views/clip-editor').then((m) => m.ClipEditor));
const Posts = lazy(() => import('./views/posts').then((m) => m.Posts));

function Shell() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const { path, route } = useLocation();
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
    if (session === null && path !== '/sign-in') route(`/sign-in?next=${encodeURIComponent(path)}`, true);
  }, [session, path]);

  if (session === undefined) return <p class="loading" role="status">Loading…</p>;
  const nav = (href: string, label: string) => (
    <a href={href} aria-current={path === href || (href !== '/' && path.startsWith(href)) ? 'page' : undefined}>{label}</a>
  );
  return (
    <SessionContext.Provider value={{ session, refresh, signOut }}>
      <a class="skip" href="#main">Skip to content</a>
      {session && (
        <header class="top">
          <a class="brand" href="/">shortwright <span>studio</span></a>
          <nav aria-label="Main">
            {nav('/', 'Requests')}
            {nav('/new', 'New')}
            {nav('/posts', 'Posts')}
          </nav>
          <div class="who">
            <span class="email" title={session.email}>{session.email}</span>
            {session.credits !== null && <span class="credits" aria-label={`${session.credits} credits left`}>{session.credits} credits</span>}
            {!session.local && <button type="button" class="link" onClick={() => void signOut()}>Sign out</button>}
          </div>
        </header>
      )}
      <main id="main" tabIndex={-1}>
        <ErrorBoundary>
          <Router>
            <Route path="/sign-in" component={SignIn} />
            <Route path="/" component={Requests} />
            <Route path="/new" component={Create} />
            <Route path="/requests/:id" component={RequestView} />
            <Route path="/requests/:id/clips/:shortId" component={ClipEditor} />
            <Route path="/posts" component={Posts} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </main>
    </SessionContext.Provider>
  );
}

function NotFound() {
  return (
    <section class="page">
      <h1>Not found</h1>
      <p><a href="/">Back to your requests</a></p>
    </section>
  );
}

render(
  <LocationProvider>
    <Shell />
  </LocationProvider>,
  document.getElementById('app')!,
);
