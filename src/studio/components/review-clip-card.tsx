// One clip of a request, as a card: the vertical player, its score in number and words, its copy (title,
// reason, description, hashtags, each copyable), layout, length and range, its downloads, and the ways on
// (edit, post). The clip editor reuses it (`actions={false}` leaves out the links to itself).
import { useRef, useState } from 'preact/hooks';
import type { ShortObject } from '../../api/types';
import { ClipPlayer } from './review-player';
import { CopyButton } from './review-copy';
import { ClipDownloads } from './review-downloads';
import { BAND_WORDS, clock, layoutWords, lengthWords, scoreBand, splitHashtags } from './review-format';
import './review.css';

export interface ClipCardProps {
  requestId: string;
  clip: ShortObject;
  /** 1 = the best clip. */
  rank: number;
  /** Exports, edits and posts exist once the request is completed (409 before; a live clip may not be stored yet). */
  exportable: boolean;
  /** The Edit and Post links (off where the card is shown inside the editor). */
  actions?: boolean;
  /** The heading level of the clip's title inside the page (default 2). */
  headingLevel?: 2 | 3;
  /** The video's link stopped loading and no fresher one is at hand (links expire): fetch the clip again. */
  onStaleLink?: () => void;
}

/**
 * Signed links change on every answer (their expiry moves), and a new src reloads the video: the card keeps the
 * link it has until the clip's file changes (a finished re-render, a new range) or the link stops loading.
 */
function useSteadyLink(latest: string, version: string, onStale?: () => void): [string, () => void] {
  const kept = useRef({ url: latest, version, stale: false });
  const [, redraw] = useState(0);
  if (kept.current.version !== version || (kept.current.stale && kept.current.url !== latest)) kept.current = { url: latest, version, stale: false };
  const refresh = () => {
    if (kept.current.url !== latest) {
      kept.current = { url: latest, version, stale: false };
      redraw((n) => n + 1);
      return;
    }
    // No fresher link at hand: the next one that comes (onStale asks for it) replaces this one.
    kept.current.stale = true;
    onStale?.();
  };
  return [kept.current.url, refresh];
}

/** Counts finished re-renders, so each one is a new version of the file (its path stays the same). */
function useRenderCount(recompiling: boolean): number {
  const state = useRef({ was: recompiling, count: 0 });
  if (state.current.was && !recompiling) state.current.count++;
  state.current.was = recompiling;
  return state.current.count;
}

export function ClipCard({ requestId, clip, rank, exportable, actions = true, headingLevel = 2, onStaleLink }: ClipCardProps) {
  const renders = useRenderCount(clip.recompiling);
  const version = `${renders}|${clip.startTimestamp}|${clip.endTimestamp}|${clip.duration}`;
  const [videoUrl, refreshVideo] = useSteadyLink(clip.video_url, version, onStaleLink);
  const [coverUrl] = useSteadyLink(clip.thumbnail_url ?? '', version);
  const band = scoreBand(clip.viral_score);
  const { text: summary, tags } = splitHashtags(clip.description, clip.title);
  const title = clip.title || `Clip ${rank}`;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const headingId = `clip-${clip.id}-title`;
  const what = `of clip ${rank}`;

  return (
    <article class="review-card" aria-labelledby={headingId}>
      <div class="review-media">
        {clip.error || !videoUrl ? (
          <div class="review-player review-player-missing">
            <p>No video: {clip.errorMessage ?? 'this clip failed to render.'}</p>
          </div>
        ) : (
          <ClipPlayer src={videoUrl} poster={coverUrl || undefined} label={title} onLoadError={refreshVideo} />
        )}
        <span class="review-rank" aria-hidden="true">#{rank}</span>
        {clip.recompiling && <span class="review-badge" role="status">Re-rendering…</span>}
      </div>
      <div class="review-body">
        <p class={`review-score review-band-${band}`}>
          <span class="visually-hidden">Rank {rank}, score {Math.round(clip.viral_score)} of 100: </span>
          <span class="review-score-num" aria-hidden="true">{Math.round(clip.viral_score)}</span>
          <span class="review-score-words">{BAND_WORDS[band]}</span>
        </p>
        <Heading id={headingId} class="review-title">{title}</Heading>
        {clip.editError && <p class="review-edit-error" role="status">The last edit failed: {clip.editError}. This is the clip as it was.</p>}
        {clip.reason && <p class="review-reason"><span class="review-label">Why: </span>{clip.reason}</p>}
        {summary && <p class="review-description">{summary}</p>}
        {tags.length > 0 && (
          <ul class="review-tags" aria-label={`Hashtags ${what}`}>
            {tags.map((t) => <li key={t}>{t}</li>)}
          </ul>
        )}
        <div class="review-copies">
          <CopyButton text={clip.title} label="Copy title" what={what} />
          <CopyButton text={clip.description} label="Copy description" what={what} />
          <CopyButton text={tags.join(' ')} label="Copy hashtags" what={what} />
        </div>
        <dl class="review-facts">
          <div><dt>Length</dt><dd>{lengthWords(clip.duration)}</dd></div>
          <div><dt>From the source</dt><dd>{clock(clip.startTimestamp)} – {clock(clip.endTimestamp)}</dd></div>
          <div><dt>Layout</dt><dd>{layoutWords(clip.layout)}</dd></div>
        </dl>
        {!clip.error && (
          <ClipDownloads requestId={requestId} clip={clip} videoUrl={videoUrl} coverUrl={coverUrl} exportable={exportable} what={what} />
        )}
        {actions && exportable && !clip.error && (
          <div class="review-actions">
            <a class="review-button" href={`/requests/${encodeURIComponent(requestId)}/clips/${encodeURIComponent(clip.id)}`} aria-label={`Edit clip ${rank}`}>
              Edit
            </a>
            <a class="review-button" href={`/posts?short=${encodeURIComponent(clip.id)}`} aria-label={`Post clip ${rank}`}>Post</a>
          </div>
        )}
      </div>
    </article>
  );
}
