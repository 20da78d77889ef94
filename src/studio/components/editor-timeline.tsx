// The transcript around the clip as a row of word buttons in reading order, the cut highlighted. One word
// is "active" (roving tabindex: Tab enters the row once, arrows move, Home/End jump); S or "Start here"
// starts the cut at it, E or "End here" ends it there. Words outside the cut are as selectable as those
// inside, so a cut can grow as well as shrink.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptWord } from './editor-api';
import { formatTime, inRange, type Range } from './editor-time';

interface Props {
  words: TranscriptWord[];
  range: Range;
  /** The cut the clip has now, to mark words the new cut adds or drops. */
  current: Range;
  /** What one item is: a word, or a sentence where the server has no word times. */
  unit: 'word' | 'sentence';
  onStart(t: number): void;
  onEnd(t: number): void;
}

export function EditorTimeline({ words, range, current, unit, onStart, onEnd }: Props) {
  const [active, setActive] = useState(() => Math.max(0, words.findIndex((w) => inRange(w, range))));
  const row = useRef<HTMLDivElement>(null);
  const at = Math.min(active, words.length - 1);
  const word = words[at];
  // The cut's first word in sight on arrival (the row holds a minute of speech before it), without taking focus.
  useEffect(() => {
    const r = row.current;
    const first = r?.children[at] as HTMLElement | undefined;
    if (r && first) r.scrollTop += first.getBoundingClientRect().top - r.getBoundingClientRect().top - 8;
  }, []);

  const focusWord = (i: number) => {
    const n = Math.max(0, Math.min(words.length - 1, i));
    setActive(n);
    (row.current?.children[n] as HTMLElement | undefined)?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const w = words[at];
    switch (e.key) {
      case 'ArrowRight': case 'ArrowDown': focusWord(at + 1); break;
      case 'ArrowLeft': case 'ArrowUp': focusWord(at - 1); break;
      case 'Home': focusWord(0); break;
      case 'End': focusWord(words.length - 1); break;
      case 's': case 'S': if (w) onStart(w.start); break;
      case 'e': case 'E': if (w) onEnd(w.end); break;
      default: return;
    }
    e.preventDefault();
  };

  if (words.length === 0) return <p class="muted">No speech was transcribed around this clip.</p>;
  return (
    <div class="editor-timeline">
      <div class="editor-timeline-bar" role="group" aria-label={`Selected ${unit}`}>
        <span class="editor-timeline-word" aria-live="polite">
          {word ? <>“{word.text.length > 40 ? `${word.text.slice(0, 40)}…` : word.text}” at {formatTime(word.start)}</> : null}
        </span>
        <button type="button" disabled={!word} onClick={() => word && onStart(word.start)}>Start here <kbd aria-hidden="true">S</kbd></button>
        <button type="button" disabled={!word} onClick={() => word && onEnd(word.end)}>End here <kbd aria-hidden="true">E</kbd></button>
      </div>
      <div
        ref={row}
        class={`editor-words editor-words-${unit}`}
        role="group"
        aria-label={`Transcript ${unit}s around the clip. Arrow keys move, S sets the start, E sets the end.`}
        onKeyDown={onKey}
      >
        {words.map((w, i) => {
          const now = inRange(w, range);
          const was = inRange(w, current);
          const cls = `editor-word${now ? ' is-in' : ''}${now !== was ? (now ? ' is-added' : ' is-dropped') : ''}${i === at ? ' is-active' : ''}`;
          return (
            <button key={i} type="button" class={cls} tabIndex={i === at ? 0 : -1} title={formatTime(w.start)} onClick={() => setActive(i)}>
              {w.text}
            </button>
          );
        })}
      </div>
    </div>
  );
}
