import { LocationProvider, Router, Route } from 'preact-iso';
import { List, Form, Status, NotFound } from './views.jsx';
import { Nav } from './nav.jsx';

export default function Shell() {
  return (
    <LocationProvider>
      <Nav />
      <main>
        <Router>
          <Route path="/" component={List} />
          <Route path="/new" component={Form} />
          <Route path="/status" component={Status} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
}
