// Placeholder until the helper that owns this view replaces it (issue 25).
export function ClipEditor() {
  return <section class="page"><h1>ClipEditor</h1></section>;
}
