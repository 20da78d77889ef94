// Placeholder until the helper that owns this view replaces it (issue 25).
export function Posts() {
  return <section class="page"><h1>Posts</h1></section>;
}
