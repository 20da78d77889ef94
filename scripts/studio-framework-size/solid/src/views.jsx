import { createMemo, createSignal, onMount, For, Show } from 'solid-js';
import { filterRows, fetchStatus, LAYOUTS } from '../../common.js';

export function List() {
  const [q, setQ] = createSignal('');
  const rows = createMemo(() => filterRows(q()));
  return (
    <section>
      <h1>Requests</h1>
      <label>Filter <input value={q()} onInput={(e) => setQ(e.currentTarget.value)} /></label>
      <p>{rows().length} rows</p>
      <ul><For each={rows()}>{(r) => <li>{r.name} — {r.status}</li>}</For></ul>
    </section>
  );
}

export function Form() {
  const [name, setName] = createSignal('');
  const [email, setEmail] = createSignal('');
  const [count, setCount] = createSignal(3);
  const [layout, setLayout] = createSignal('auto');
  const [captions, setCaptions] = createSignal(true);
  const [saved, setSaved] = createSignal('');
  const submit = (e) => {
    e.preventDefault();
    setSaved(JSON.stringify({ name: name(), email: email(), count: count(), layout: layout(), captions: captions() }));
  };
  return (
    <form onSubmit={submit}>
      <h1>New</h1>
      <label>Name <input value={name()} onInput={(e) => setName(e.currentTarget.value)} /></label>
      <label>Email <input type="email" value={email()} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
      <label>Clips <input type="number" min="1" max="10" value={count()} onInput={(e) => setCount(Number(e.currentTarget.value))} /></label>
      <label>Layout <select value={layout()} onChange={(e) => setLayout(e.currentTarget.value)}><For each={LAYOUTS}>{(l) => <option value={l}>{l}</option>}</For></select></label>
      <label><input type="checkbox" checked={captions()} onChange={(e) => setCaptions(e.currentTarget.checked)} /> Captions</label>
      <button type="submit" disabled={!name()}>Save</button>
      <Show when={saved()}><output>{saved()}</output></Show>
    </form>
  );
}

export function Status() {
  const [text, setText] = createSignal('Loading…');
  onMount(() => { void fetchStatus().then(setText); });
  return <section><h1>Status</h1><p>{text()}</p></section>;
}

export function NotFound() {
  return <section><h1>Not found</h1></section>;
}
