// One clip's vertical player. Nothing downloads until asked (preload="none", the cover as poster), so a grid
// of ten clips costs ten JPEGs. A mouse hovering previews it muted; a click, a tap or Space/Enter on the play
// button plays it with sound and hands over to the browser's own controls (seek, volume, full screen).
import { useEffect, useRef, useState } from 'preact/hooks';

type Mode = 'idle' | 'preview' | 'playing';

/** The one clip playing with sound: starting another pauses it (two voices at once help nobody). */
let audible: HTMLVideoElement | null = null;

const canHover = () => typeof matchMedia === 'function' && matchMedia('(hover: hover) and (pointer: fine)').matches;

export interface ClipPlayerProps {
  src: string;
  poster?: string;
  /** Names the clip in the controls' accessible names ("Play with sound: <label>"). */
  label: string;
  /** Called when the video fails to load (an expired link): the caller hands a fresh one. */
  onLoadError?: () => void;
}

export function ClipPlayer({ src, poster, label, onLoadError }: ClipPlayerProps) {
  const video = useRef<HTMLVideoElement>(null);
  const [mode, setMode] = useState<Mode>('idle');
  const [failed, setFailed] = useState(false);

  // A new file (re-rendered, fresh link): back to the poster.
  useEffect(() => {
    setMode('idle');
    setFailed(false);
  }, [src]);
  useEffect(() => () => {
    if (audible === video.current) audible = null;
  }, []);

  const preview = () => {
    const v = video.current;
    if (!v || mode !== 'idle' || !canHover()) return;
    v.muted = true;
    setMode('preview');
    v.play().catch(() => setMode('idle'));
  };
  const endPreview = () => {
    const v = video.current;
    if (!v || mode !== 'preview') return;
    v.pause();
    setMode('idle');
  };
  const playWithSound = (fromKeyboard: boolean) => {
    const v = video.current;
    if (!v) return;
    if (audible && audible !== v) audible.pause();
    audible = v;
    v.muted = false;
    setMode('playing');
    v.play().catch(() => {
      // Refused (no data yet, or autoplay rules): the native controls are there to try again.
    });
    // The play button goes away with the browser's controls in its place: keep the keyboard where the user is.
    if (fromKeyboard) requestAnimationFrame(() => v.focus());
  };

  return (
    <div class={`review-player${mode === 'playing' ? ' is-playing' : ''}`} onMouseEnter={preview} onMouseLeave={endPreview}>
      <video
        ref={video}
        src={src}
        poster={poster}
        preload="none"
        playsInline
        muted={mode !== 'playing'}
        loop={mode === 'preview'}
        controls={mode === 'playing'}
        tabIndex={mode === 'playing' ? 0 : -1}
        aria-label={`Clip: ${label}`}
        onEnded={() => setMode((m) => (m === 'preview' ? m : 'idle'))}
        onError={() => {
          setFailed(true);
          onLoadError?.();
        }}
      />
      {mode !== 'playing' && (
        <button
          type="button"
          class="review-play"
          aria-label={`Play with sound: ${label}`}
          onClick={(e) => playWithSound(e.detail === 0)}
        >
          <span aria-hidden="true">▶</span>
        </button>
      )}
      {failed && <p class="review-player-error" role="status">The video could not be loaded.</p>}
    </div>
  );
}
