// Placeholder until the helper that owns this view replaces it (issue 25).
export function Requests() {
  return <section class="page"><h1>Requests</h1></section>;
}
