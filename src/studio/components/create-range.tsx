// The part of the source to cut clips from: a player of the picked file (or a direct file link) to set
// start and end at the play position, or typed times (mm:ss or seconds), drawn on a simple bar.
import { useRef, useState } from 'preact/hooks';
import { formatTime, parseTime, rangeProblem, WINDOW_MAX, WINDOW_MIN } from './create-time';

export interface RangeProps {
  /** A playable source: an object URL of the picked file, or a direct file link (previewed on request). */
  src: string | null;
  /** The link needs a click before loading (an outside file: nothing is fetched unasked). */
  srcOnRequest: boolean;
  startText: string;
  endText: string;
  onStart: (t: string) => void;
  onEnd: (t: string) => void;
  local: boolean;
  duration: number | undefined;
  onDuration: (d: number | undefined) => void;
  /** The server's message about start/end. */
  error?: string;
}

export function CreateRange(p: RangeProps) {
  const video = useRef<HTMLVideoElement>(null);
  const [asked, setAsked] = useState<string | null>(null);
  const [unplayable, setUnplayable] = useState<string | null>(null);
  const start = parseTime(p.startText);
  const end = parseTime(p.endText);
  const badStart = p.startText.trim() !== '' && start === null;
  const badEnd = p.endText.trim() !== '' && end === null;
  // A time not typed yet is no error to shout about: the create button says what is missing.
  const problem = badStart || badEnd ? 'Type times as mm:ss (for example 1:30), h:mm:ss or seconds.'
    : start === null || end === null ? null : rangeProblem(start, end, { local: p.local, duration: p.duration });
  const message = p.error ?? problem;
  const showPlayer = p.src !== null && (!p.srcOnRequest || asked === p.src) && unplayable !== p.src;

  const at = () => Math.round((video.current?.currentTime ?? 0) * 10) / 10;
  const d = p.duration;
  const barStart = d && start !== null ? Math.min(start / d, 1) : 0;
  const barEnd = d ? Math.min((end ?? d) / d, 1) : 0;
  const length = start !== null || end !== null ? Math.min(end ?? d ?? NaN, d ?? Infinity) - (start ?? 0) : NaN;

  return (
    <fieldset class="create-box create-range">
      <legend>2. Range</legend>
      <p class="muted create-small" id="create-range-hint">
        {p.local
          ? 'Which part of the video to find clips in. Leave both empty for the whole video.'
          : `Which part of the video to find clips in: from ${WINDOW_MIN / 60} to ${WINDOW_MAX / 60} minutes long.`}
      </p>
      {p.src && p.srcOnRequest && asked !== p.src && unplayable !== p.src && (
        <button type="button" onClick={() => setAsked(p.src)}>Preview the video file</button>
      )}
      {showPlayer && (
        <video
          ref={video} class="create-player" src={p.src ?? undefined} controls preload="metadata" playsInline
          aria-label="Source video preview"
          onLoadedMetadata={(e) => p.onDuration(Number.isFinite(e.currentTarget.duration) ? e.currentTarget.duration : undefined)}
          onError={() => { setUnplayable(p.src); p.onDuration(undefined); }}
        />
      )}
      {p.src && unplayable === p.src && (
        <p class="muted" role="status">This video cannot be played in the browser; type the times instead.</p>
      )}
      {!p.src && <p class="muted create-small">{p.srcOnRequest ? 'Links to video pages cannot be previewed here: type the times.' : 'Pick a file to preview it here, or type the times.'}</p>}

      <div class="create-times">
        <TimeInput which="start" text={p.startText} bad={badStart} placeholder={p.local ? '0:00' : ''} onText={p.onStart} here={showPlayer ? at : undefined} />
        <TimeInput which="end" text={p.endText} bad={badEnd} placeholder={p.local ? 'end of video' : ''} onText={p.onEnd} here={showPlayer ? at : undefined} />
      </div>
      {d !== undefined && (
        <div class="create-bar" aria-hidden="true">
          <div style={{ left: `${barStart * 100}%`, width: `${Math.max(barEnd - barStart, 0) * 100}%` }} />
        </div>
      )}
      <p class="muted create-small">
        {Number.isFinite(length) && length > 0 ? `Selected: ${formatTime(length)}` : ''}
        {d !== undefined ? `${Number.isFinite(length) && length > 0 ? ' of ' : 'Video length: '}${formatTime(d)}` : ''}
      </p>
      {d !== undefined && end !== null && end > d + 0.5 && !message && (
        <p class="muted create-small">The end is past the video’s end ({formatTime(d)}): the server will shorten the range to fit.</p>
      )}
      <p id="create-range-error" class="error" aria-live="polite">{message ?? ''}</p>
    </fieldset>
  );
}

/** One end of the range: typed, or taken from the player's position ("Set start here"). */
function TimeInput({ which, text, bad, placeholder, onText, here }: {
  which: 'start' | 'end'; text: string; bad: boolean; placeholder: string; onText: (t: string) => void; here?: () => number;
}) {
  const name = which === 'start' ? 'Start' : 'End';
  return (
    <div class="create-time">
      <label for={`create-${which}`}>{name} <span class="muted">(mm:ss or seconds)</span></label>
      <input
        id={`create-${which}`} inputMode="decimal" value={text} placeholder={placeholder}
        aria-invalid={bad || undefined} aria-describedby="create-range-hint create-range-error"
        onInput={(e) => onText(e.currentTarget.value)}
      />
      {here && <button type="button" onClick={() => onText(formatTime(here()))}>Set {which} here</button>}
    </div>
  );
}
