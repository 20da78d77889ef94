import { useEffect, useState } from 'preact/hooks';
import { listenPath } from '../../common.js';
import { List, Form, Status, NotFound } from './views.jsx';
import { Nav } from './nav.jsx';

const ROUTES = { '/': List, '/new': Form, '/status': Status };

export default function Shell() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => listenPath(setPath), []);
  const View = ROUTES[path] ?? NotFound;
  return <><Nav /><main><View /></main></>;
}
