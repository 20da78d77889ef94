// Placeholder until the helper that owns this view replaces it (issue 25).
export function RequestView() {
  return <section class="page"><h1>RequestView</h1></section>;
}
