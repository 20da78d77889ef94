export const Nav = () => (
  <nav><a href="/">Requests</a> <a href="/new">New</a> <a href="/status">Status</a></nav>
);
