// The clip's caption words as the JSON export numbers them (cue, word in cue), each fixable in place:
// click (or Enter) opens an input, Enter keeps the fix, Esc drops it, "" removes the word. The fixes go out
// as captionEdits.words with the next re-render; the service applies them to the captions as seen and
// carries them over when the cut moves, so a fixed word stays fixed wherever it still appears.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CaptionWord } from './editor-api';

export const fixKey = (w: Pick<CaptionWord, 'cue' | 'inCue'>) => `${w.cue}.${w.inCue}`;

interface Props {
  words: CaptionWord[];
  fixes: ReadonlyMap<string, string>;
  /** Whether a word (by its clip time) is still inside the new cut. */
  kept(w: CaptionWord): boolean;
  rangeChanged: boolean;
  onFix(key: string, text: string | null): void;
}

export function EditorCaptions({ words, fixes, kept, rangeChanged, onFix }: Props) {
  const [editing, setEditing] = useState<number | null>(null);
  const list = useRef<HTMLDivElement>(null);
  const refocus = useRef<number | null>(null);
  useEffect(() => {
    if (editing === null && refocus.current !== null) {
      (list.current?.querySelector(`[data-n="${refocus.current}"]`) as HTMLElement | null)?.focus();
      refocus.current = null;
    }
  }, [editing]);

  const close = (w: CaptionWord, text: string | null) => {
    if (text !== null) onFix(fixKey(w), text.trim() === w.text ? null : text.trim());
    refocus.current = w.n;
    setEditing(null);
  };

  return (
    <div class="editor-captions">
      {rangeChanged && (
        <p class="editor-note">
          Fixes are made on the words of the current cut. They stay with those words when the cut moves; words the new cut
          drops (dimmed) are simply not shown.
        </p>
      )}
      <div ref={list} class="editor-caption-words" role="group" aria-label="Caption words; choose one to fix it">
        {words.map((w) => {
          const fix = fixes.get(fixKey(w));
          if (editing === w.n) return <WordInput key={w.n} word={w} initial={fix ?? w.text} onDone={(t) => close(w, t)} />;
          const cls = `editor-cword${fix !== undefined ? ' is-fixed' : ''}${fix === '' ? ' is-removed' : ''}${kept(w) ? '' : ' is-dropped'}`;
          return (
            <button key={w.n} type="button" class={cls} data-n={w.n} onClick={() => setEditing(w.n)}>
              {fix === undefined ? w.text : fix === '' ? <s>{w.text}</s> : fix}
              {fix !== undefined && <span class="visually-hidden">{fix === '' ? ' (removed)' : ` (was ${w.text})`}</span>}
            </button>
          );
        })}
      </div>
      <p class="muted editor-hint">
        {fixes.size === 0 ? 'Choose a word to correct it; Enter keeps the fix, Esc cancels, an empty word removes it.'
          : `${fixes.size} word${fixes.size === 1 ? '' : 's'} fixed — sent with the re-render.`}
      </p>
    </div>
  );
}

function WordInput({ word, initial, onDone }: { word: CaptionWord; initial: string; onDone(text: string | null): void }) {
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => { input.current?.focus(); input.current?.select(); }, []);
  const finish = (text: string | null) => {
    if (done.current) return;
    done.current = true;
    onDone(text);
  };
  return (
    <input
      ref={input}
      class="editor-cword-input"
      type="text"
      maxLength={200}
      defaultValue={initial}
      aria-label={`Fix “${word.text}” (line ${word.cue}, word ${word.inCue}); Enter keeps, Escape cancels, empty removes`}
      size={Math.max(4, initial.length + 1)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') { e.preventDefault(); finish(e.currentTarget.value); }
        else if (e.key === 'Escape') { e.preventDefault(); finish(null); }
      }}
      onBlur={(e) => finish(e.currentTarget.value)}
    />
  );
}
