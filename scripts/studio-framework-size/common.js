// What the three apps share, so they differ only in the framework: the data, the filter, the fetch and the
// ~15-line router used by the "no router library" builds.
const STATUSES = ['queued', 'processing', 'completed'];
export const ROWS = Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, name: `Request ${i + 1}`, status: STATUSES[i % 3] }));

export function filterRows(q) {
  const n = q.trim().toLowerCase();
  return n ? ROWS.filter((r) => r.name.toLowerCase().includes(n) || r.status.includes(n)) : ROWS;
}

export async function fetchStatus() {
  try {
    const res = await fetch('/api/v1/healthz', { credentials: 'same-origin' });
    return `${res.status} ${await res.text()}`;
  } catch (e) {
    return `failed: ${e.message}`;
  }
}

export const LAYOUTS = ['auto', 'split', 'full'];

/** Calls onChange(pathname) on back/forward and on clicks on same-origin links (which it turns into pushState). */
export function listenPath(onChange) {
  const go = () => onChange(location.pathname);
  const click = (e) => {
    const a = e.target.closest && e.target.closest('a');
    if (!a || a.origin !== location.origin || e.button || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    history.pushState(null, '', a.href);
    go();
  };
  addEventListener('popstate', go);
  document.addEventListener('click', click);
  return () => {
    removeEventListener('popstate', go);
    document.removeEventListener('click', click);
  };
}
