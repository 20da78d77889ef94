import { createSignal, onCleanup } from 'solid-js';
import { Dynamic } from 'solid-js/web';
import { listenPath } from '../../common.js';
import { List, Form, Status, NotFound } from './views.jsx';
import { Nav } from './nav.jsx';

const ROUTES = { '/': List, '/new': Form, '/status': Status };

export default function Shell() {
  const [path, setPath] = createSignal(location.pathname);
  onCleanup(listenPath(setPath));
  return <><Nav /><main><Dynamic component={ROUTES[path()] ?? NotFound} /></main></>;
}
