// A transcript grown to cover a wider range (issue 14: a clip re-rendered past the request's range). Only
// what is missing is recognised: the part before the transcript and/or the part after it. Each new piece
// overlaps the transcript by one sentence, the one the old range may have cut in half: Whisper hears it
// again whole, with its context, and the two transcripts are joined in the pause before (or after) it, so
// no word is cut, doubled or lost at the seam. The request's transcript itself is never changed.
import { buildSentences } from './sentences.js';
import type { Transcriber } from './transcribe.js';
import type { TimeRange } from '../../domain/time.js';
import type { Transcript, Word } from '../../domain/transcript.js';

export interface CoverOptions {
  /** The source media (FetchedSource.path). */
  mediaPath: string;
  /** FetchedSource.contentKey: the new pieces are cached like any transcript (a second re-render is free). */
  cacheKey?: string;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
  /** Most already-transcribed seconds heard again at one seam (default 15 s): a bound on the extra cost. */
  maxOverlapSec?: number;
}

/** What one coverRange did: the ranges recognised (for logs and tests). */
export interface CoverReport { pieces: TimeRange[] }

const DEFAULT_MAX_OVERLAP_SEC = 15;
/**
 * A pause at least this long between two sentences is a place two transcripts can be joined: words are
 * assigned to a side by their midpoints, so half of it is the slack either transcript's word times have.
 * Read speech leaves 0.15-0.35 s between sentences after word timing (the sample talk); a sentence end
 * whose next word starts at once (a run-on the timing closed up) is passed over for the next one.
 */
const MIN_SEAM_GAP_SEC = 0.1;

const mid = (w: Word) => (w.start + w.end) / 2;
/** Seams to the millisecond: they are part of the pieces' cache keys, which float noise would make unreadable. */
const ms = (s: number) => Math.round(s * 1000) / 1000;

/**
 * Where to join a new piece recognised after the transcript: in the pause before the transcript's last
 * sentence (the one `end` may have cut), if it starts within `maxOverlap` of the end and that pause is
 * a real one; else in the widest pause between words in that last stretch. Returns the seam time, or the
 * transcript's end when it has no words there (nothing to hear again).
 */
function seamBeforeEnd(t: Transcript, maxOverlap: number): number {
  const end = t.range.end;
  const from = end - maxOverlap;
  const words = t.words.filter((w) => w.end > from && w.start < end);
  if (words.length === 0) return end;
  for (let s = t.sentences.length - 1; s >= 1; s--) {
    const first = t.sentences[s]!.words[0];
    const prev = t.sentences[s - 1]!.words.at(-1);
    if (!first || !prev) continue;
    if (first.start < from) break;
    if (first.start - prev.end >= MIN_SEAM_GAP_SEC) return (prev.end + first.start) / 2;
  }
  return widestGap(t.words, from, end) ?? Math.max(from, t.range.start);
}

/** The mirror of seamBeforeEnd for a piece recognised before the transcript: after its first sentence. */
function seamAfterStart(t: Transcript, maxOverlap: number): number {
  const start = t.range.start;
  const to = start + maxOverlap;
  const words = t.words.filter((w) => w.start < to && w.end > start);
  if (words.length === 0) return start;
  for (let s = 0; s < t.sentences.length - 1; s++) {
    const last = t.sentences[s]!.words.at(-1);
    const next = t.sentences[s + 1]!.words[0];
    if (!last || !next) continue;
    if (last.end > to) break;
    if (next.start - last.end >= MIN_SEAM_GAP_SEC) return (last.end + next.start) / 2;
  }
  return widestGap(t.words, start, to) ?? Math.min(to, t.range.end);
}

/** The middle of the widest pause between consecutive words lying inside [from, to], or null. */
function widestGap(words: Word[], from: number, to: number): number | null {
  let best: number | null = null;
  let width = 0;
  for (let i = 1; i < words.length; i++) {
    const a = words[i - 1]!, b = words[i]!;
    if (a.end < from || b.start > to) continue;
    const gap = b.start - a.end;
    if (gap > width) { width = gap; best = (a.end + b.start) / 2; }
  }
  return best;
}

/**
 * `transcript` extended to cover `range`: the words before and after its own range are recognised (each
 * piece reaching one sentence into the transcript, see above) and joined with its words in time order;
 * sentences are rebuilt over the whole. A range the transcript already covers costs nothing and returns
 * it as it is. The result's range is the union of both, except for a range further than `maxOverlapSec`
 * from the transcript: that range is transcribed alone and returned alone. `report`, when given, receives the pieces heard.
 */
export async function coverRange(transcriber: Transcriber, transcript: Transcript, range: TimeRange, opts: CoverOptions,
  report?: (r: CoverReport) => void): Promise<Transcript> {
  const have = transcript.range;
  const before = range.start < have.start;
  const after = range.end > have.end;
  if (!before && !after) {
    report?.({ pieces: [] });
    return transcript;
  }
  const maxOverlap = opts.maxOverlapSec ?? DEFAULT_MAX_OVERLAP_SEC;
  const hear = (piece: TimeRange, onProgress?: (f: number) => void) => transcriber.transcribe({
    mediaPath: opts.mediaPath, range: piece, language: transcript.language, cacheKey: opts.cacheKey, signal: opts.signal, onProgress,
  });
  if (have.start - range.end > maxOverlap || range.start - have.end > maxOverlap) {
    // Far from the transcript (a clip moved minutes away in a long source): bridging the distance would
    // hear it all, so the range is heard on its own; there is nothing to join.
    const alone = await hear(range, opts.onProgress);
    report?.({ pieces: [range] });
    return alone;
  }
  const whole: TimeRange = { start: Math.min(range.start, have.start), end: Math.max(range.end, have.end) };
  let seamStart = before ? ms(seamAfterStart(transcript, maxOverlap)) : have.start;
  let seamEnd = after ? ms(seamBeforeEnd(transcript, maxOverlap)) : have.end;
  // A transcript of a sentence or two: the seams cross (or leave too little between them to be worth
  // keeping), and hearing the whole range once costs about as much as two pieces and joins nothing.
  const pieces: TimeRange[] = [];
  let keep = true;
  if (before && after && seamEnd - seamStart < 1) {
    pieces.push(whole);
    keep = false;
    seamStart = whole.end;
    seamEnd = whole.end;
  } else {
    if (before) pieces.push({ start: range.start, end: seamStart });
    if (after) pieces.push({ start: seamEnd, end: range.end });
  }
  const total = pieces.reduce((s, p) => s + (p.end - p.start), 0);
  let done = 0;
  const heard: Transcript[] = [];
  for (const piece of pieces) {
    const span = piece.end - piece.start;
    heard.push(await hear(piece, (f) => opts.onProgress?.((done + f * span) / total)));
    done += span;
  }
  report?.({ pieces });

  let words: Word[];
  if (!keep) words = heard[0]!.words;
  else {
    const first = before ? heard[0]! : null;
    const last = after ? heard[heard.length - 1]! : null;
    words = [
      ...(first ? first.words.filter((w) => mid(w) < seamStart) : []),
      ...transcript.words.filter((w) => (!before || mid(w) >= seamStart) && (!after || mid(w) < seamEnd)),
      ...(last ? last.words.filter((w) => mid(w) >= seamEnd) : []),
    ];
  }
  words.sort((a, b) => a.start - b.start || a.end - b.end);
  const models = [...new Set([transcript.model, ...heard.map((h) => h.model)])];
  return {
    language: transcript.language,
    // Normally one model; a setting changed between the request and the re-render shows as both names.
    model: models.join('+'),
    range: whole,
    words,
    sentences: buildSentences(words, transcript.language),
  };
}
