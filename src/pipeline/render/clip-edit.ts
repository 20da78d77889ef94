// A clip's own changes (a re-render's edit) over its request: the options it is made with, and which of
// the request's sentences a moved clip holds.
import type { ClipEdit, CreateRequest, SentenceRecord } from '../../domain/request.js';
import type { TimeRange } from '../../domain/time.js';

/** The request's options with a clip's changes over them (the range and title are the clip's, not options). */
export function clipOptions(options: CreateRequest, edit: ClipEdit): CreateRequest {
  const { start: _s, end: _e, title: _t, captionEdits: _c, ...change } = edit;
  const merged = { ...options };
  for (const [k, v] of Object.entries(change)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  return merged;
}

/**
 * Which of the request's sentences a clip of a new range holds: those with most of their time inside it.
 * Sentences of a range extended past the request's are not in its `sentences` (they stay the original
 * transcript), so they have no index to give.
 */
export function sentencesIn(sentences: readonly SentenceRecord[], clip: TimeRange): number[] {
  return sentences.filter((s) => Math.min(s.end, clip.end) - Math.max(s.start, clip.start) > (s.end - s.start) / 2).map((s) => s.index);
}
