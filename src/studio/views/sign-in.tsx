// Placeholder until the helper that owns this view replaces it (issue 25).
export function SignIn() {
  return <section class="page"><h1>SignIn</h1></section>;
}
