// "Preview" plays the new cut at once, before any render: the kept source from the cut's start, stopped at
// its end (timeupdate plus a frame loop, since timeupdate alone can overshoot by a quarter second). Without
// the source (the server did not keep it) the clip's own video stands in: only the part of the new cut that
// the current clip contains can be played, and the page says so.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ShortObject } from '../../api/types';
import { formatTime, type Range } from './editor-time';

interface Props {
  sourceUrl?: string;
  range: Range;
  /** The cut the clip video holds now, and the seconds of meme intro before it in that video. */
  current: Range;
  introSeconds: number;
  short: ShortObject;
  /** The source's length once the player knows it. */
  onSourceSeconds(s: number): void;
}

/** Plays `from`..`to` (media seconds) in `video`; returns the function that stops guarding. */
function playSpan(video: HTMLVideoElement, from: number, to: number): () => void {
  let frame = 0;
  let over = false;
  const atEnd = () => {
    if (over || video.currentTime < to - 0.02) return false;
    stop();
    video.pause();
    video.currentTime = to;
    return true;
  };
  // One frame loop for precision; timeupdate as the backstop when frames are throttled (a background tab).
  const loop = () => { if (!atEnd() && !over) frame = requestAnimationFrame(loop); };
  const onTime = () => { atEnd(); };
  // The person took over (seeked outside the cut or paused): the preview is over.
  const onSeek = () => { if (video.currentTime < from - 0.25 || video.currentTime > to + 0.25) stop(); };
  const stop = () => {
    over = true;
    cancelAnimationFrame(frame);
    video.removeEventListener('timeupdate', onTime);
    video.removeEventListener('seeking', onSeek);
    video.removeEventListener('pause', stop);
  };
  video.currentTime = from;
  video.addEventListener('timeupdate', onTime);
  void video.play().then(() => {
    if (over) return;
    video.addEventListener('seeking', onSeek);
    video.addEventListener('pause', stop);
    frame = requestAnimationFrame(loop);
  }).catch(() => stop());
  return stop;
}

export function EditorPreview({ sourceUrl, range, current, introSeconds, short, onSourceSeconds }: Props) {
  const source = useRef<HTMLVideoElement>(null);
  const clip = useRef<HTMLVideoElement>(null);
  const stopRef = useRef<(() => void) | null>(null);
  const [note, setNote] = useState('');
  useEffect(() => () => stopRef.current?.(), []);

  // Without the source, the new cut's overlap with the current one, in the clip video's time.
  const overlap = { start: Math.max(range.start, current.start), end: Math.min(range.end, current.end) };
  const canPreview = sourceUrl ? true : overlap.end - overlap.start > 0.1 && !short.recompiling;

  const preview = () => {
    stopRef.current?.();
    if (sourceUrl && source.current) {
      setNote(`Playing ${formatTime(range.start)} – ${formatTime(range.end)} of the source.`);
      stopRef.current = playSpan(source.current, range.start, range.end);
    } else if (clip.current) {
      const shift = introSeconds - current.start;
      const partial = overlap.start > range.start + 0.05 || overlap.end < range.end - 0.05;
      setNote(partial
        ? `Playing only ${formatTime(overlap.start)} – ${formatTime(overlap.end)}: the rest of the new cut is not in the current clip.`
        : `Playing ${formatTime(range.start)} – ${formatTime(range.end)} inside the current clip.`);
      stopRef.current = playSpan(clip.current, overlap.start + shift, overlap.end + shift);
    }
  };

  return (
    <section class="editor-preview" aria-labelledby="editor-preview-title">
      <h2 id="editor-preview-title" class="visually-hidden">Preview</h2>
      <div class="editor-players">
        {sourceUrl && (
          <figure class="editor-source">
            <video
              ref={source}
              src={sourceUrl}
              preload="metadata"
              controls
              playsInline
              aria-label="Source video"
              onLoadedMetadata={(e) => { const d = (e.currentTarget as HTMLVideoElement).duration; if (Number.isFinite(d)) onSourceSeconds(d); }}
            />
            <figcaption>Source</figcaption>
          </figure>
        )}
        <figure class="editor-clip">
          {short.video_url && !short.error ? (
            <video
              ref={clip}
              key={short.video_url}
              src={short.video_url}
              poster={short.thumbnail_url}
              preload="metadata"
              controls
              playsInline
              aria-label={`Current clip: ${short.title}`}
            />
          ) : <div class="editor-novideo">No video yet</div>}
          <figcaption>
            Current clip{short.recompiling && <span class="editor-badge" role="status"> · re-rendering…</span>}
          </figcaption>
        </figure>
      </div>
      <div class="editor-preview-bar">
        <button type="button" class="primary" onClick={preview} disabled={!canPreview}>▶ Preview cut</button>
        <span class="muted" aria-live="polite">{note}</span>
      </div>
      {!sourceUrl && (
        <p class="editor-note">
          The source video is not kept for this request, so the preview plays inside the current clip only; parts of a new
          cut outside it show once re-rendered.
        </p>
      )}
    </section>
  );
}
