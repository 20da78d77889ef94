import { useEffect, useMemo, useState } from 'preact/hooks';
import { filterRows, fetchStatus, LAYOUTS } from '../../common.js';

export function List() {
  const [q, setQ] = useState('');
  const rows = useMemo(() => filterRows(q), [q]);
  return (
    <section>
      <h1>Requests</h1>
      <label>Filter <input value={q} onInput={(e) => setQ(e.currentTarget.value)} /></label>
      <p>{rows.length} rows</p>
      <ul>{rows.map((r) => <li key={r.id}>{r.name} — {r.status}</li>)}</ul>
    </section>
  );
}

export function Form() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [count, setCount] = useState(3);
  const [layout, setLayout] = useState('auto');
  const [captions, setCaptions] = useState(true);
  const [saved, setSaved] = useState('');
  const submit = (e) => {
    e.preventDefault();
    setSaved(JSON.stringify({ name, email, count, layout, captions }));
  };
  return (
    <form onSubmit={submit}>
      <h1>New</h1>
      <label>Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
      <label>Email <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
      <label>Clips <input type="number" min="1" max="10" value={count} onInput={(e) => setCount(Number(e.currentTarget.value))} /></label>
      <label>Layout <select value={layout} onChange={(e) => setLayout(e.currentTarget.value)}>{LAYOUTS.map((l) => <option value={l}>{l}</option>)}</select></label>
      <label><input type="checkbox" checked={captions} onChange={(e) => setCaptions(e.currentTarget.checked)} /> Captions</label>
      <button type="submit" disabled={!name}>Save</button>
      {saved && <output>{saved}</output>}
    </form>
  );
}

export function Status() {
  const [text, setText] = useState('Loading…');
  useEffect(() => { void fetchStatus().then(setText); }, []);
  return <section><h1>Status</h1><p>{text}</p></section>;
}

export function NotFound() {
  return <section><h1>Not found</h1></section>;
}
