import { Router, Route } from '@solidjs/router';
import { List, Form, Status, NotFound } from './views.jsx';
import { Nav } from './nav.jsx';

const Layout = (props) => <><Nav /><main>{props.children}</main></>;

export default function Shell() {
  return (
    <Router root={Layout}>
      <Route path="/" component={List} />
      <Route path="/new" component={Form} />
      <Route path="/status" component={Status} />
      <Route path="*404" component={NotFound} />
    </Router>
  );
}
