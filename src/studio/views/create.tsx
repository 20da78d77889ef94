// Placeholder until the helper that owns this view replaces it (issue 25).
export function Create() {
  return <section class="page"><h1>Create</h1></section>;
}
