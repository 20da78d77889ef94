// In and out as times a person can type (12.5, 1:02.3) and nudge (±0.1 s, ±1 s), with the new duration and
// why the server would refuse the cut, said before anything is sent.
import { useEffect, useState } from 'preact/hooks';
import { formatDuration, formatTime, nudge, parseTime, type Range } from './editor-time';

interface Props {
  range: Range;
  sourceSeconds?: number;
  problem: string | null;
  onChange(r: Range): void;
}

export function EditorRange({ range, sourceSeconds, problem, onChange }: Props) {
  return (
    <fieldset class="editor-range">
      <legend>In and out</legend>
      <TimeField label="Start" value={range.start} sourceSeconds={sourceSeconds} onValue={(start) => onChange({ ...range, start })} />
      <TimeField label="End" value={range.end} sourceSeconds={sourceSeconds} onValue={(end) => onChange({ ...range, end })} />
      <p class="editor-duration" aria-live="polite">
        Duration <strong>{formatDuration(range.end - range.start)}</strong>
        {problem && <span class="error" role="alert"> — {problem}</span>}
      </p>
    </fieldset>
  );
}

function TimeField({ label, value, sourceSeconds, onValue }: { label: string; value: number; sourceSeconds?: number; onValue(t: number): void }) {
  const [draft, setDraft] = useState(formatTime(value));
  const [bad, setBad] = useState(false);
  // A cut set from the timeline or a nudge shows here at once.
  useEffect(() => { setDraft(formatTime(value)); setBad(false); }, [value]);
  const id = `editor-${label.toLowerCase()}`;
  const commit = () => {
    const t = parseTime(draft);
    if (t === null) return setBad(true);
    setBad(false);
    if (Math.abs(t - value) >= 1e-3) onValue(t);
    else setDraft(formatTime(value));
  };
  const step = (d: number) => onValue(nudge(value, d, sourceSeconds));
  const what = label.toLowerCase();
  return (
    <div class="editor-time">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        spellcheck={false}
        value={draft}
        aria-invalid={bad || undefined}
        aria-describedby={bad ? `${id}-error` : `${id}-hint`}
        onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
        onBlur={commit}
        onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); commit(); } }}
      />
      <span id={`${id}-hint`} class="visually-hidden">Seconds, or minutes:seconds like 1:02.5</span>
      {bad && <span id={`${id}-error`} class="error">Type seconds (12.5) or m:ss.s (1:02.5).</span>}
      <div class="editor-nudges" role="group" aria-label={`Nudge the ${what}`}>
        <button type="button" onClick={() => step(-1)}>−1 s<span class="visually-hidden"> earlier</span></button>
        <button type="button" onClick={() => step(-0.1)}>−0.1 s<span class="visually-hidden"> earlier</span></button>
        <button type="button" onClick={() => step(0.1)}>+0.1 s<span class="visually-hidden"> later</span></button>
        <button type="button" onClick={() => step(1)}>+1 s<span class="visually-hidden"> later</span></button>
      </div>
    </div>
  );
}
