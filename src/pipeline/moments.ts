// Stages 3 and 4 behind one call: measure the range's audio, pick the moments worth a short, put their
// edges in pauses, and write their copy. The orchestrator and `npm run eval` both go through here, so the
// evaluation scores exactly what users get (minus the optional LLM polish, which the orchestrator adds).
import { findHighlights } from './highlights.js';
import { writeCopies } from './copywriter.js';
import { analyseAudio } from './audio-features.js';
import { placeClipEdges } from './clip-edges.js';
import type { ClipCopy, HeatmapPoint, Highlight, PreferredLength, TimeRange, Transcript } from './types.js';

export interface MomentsRequest {
  mediaPath: string;
  transcript: Transcript;
  range: TimeRange;
  heatmap: HeatmapPoint[];
  preferredLength: PreferredLength;
  /** null = automatic (as many good, distinct picks as the range supports). */
  maxShorts: number | null;
  noClipping: boolean;
  /** false: score with language-neutral signals only, even for English (measurement; see HighlightRequest). */
  lexical?: boolean;
  signal?: AbortSignal;
}

export interface Moment { highlight: Highlight; copy: ClipCopy }

/** Ranked moments, best first; [] when no segment of the range can stand alone as a clip. */
export async function pickMoments(req: MomentsRequest): Promise<Moment[]> {
  const audio = await analyseAudio(req.mediaPath, req.range, req.signal);
  const picked = findHighlights({
    transcript: req.transcript, audio, heatmap: req.heatmap, preferredLength: req.preferredLength,
    maxShorts: req.maxShorts, noClipping: req.noClipping, range: req.range, lexical: req.lexical,
  });
  // Edges out of the recognised word times into the pauses really there (clip-edges.ts).
  const highlights = await placeClipEdges(picked, {
    mediaPath: req.mediaPath, transcript: req.transcript, range: req.range, noClipping: req.noClipping, signal: req.signal,
  });
  // Copy for the whole request at once, so no two clips share a title or a description.
  const copies = writeCopies(highlights, req.transcript);
  return highlights.map((highlight, k) => ({ highlight, copy: copies[k]! }));
}
