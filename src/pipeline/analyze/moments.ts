// Stages 3 and 4 behind one call: measure the range's audio, pick the moments worth a short, put their
// edges in pauses, and write their copy. The orchestrator and `npm run eval` both go through here, so the
// evaluation scores exactly what users get (minus the optional LLM polish, which the orchestrator adds).
// A range longer than one detection window (whole recordings in local mode, issue 15) is scored window by
// window over the one transcript and the picks ranked together (windows.ts).
import { findHighlights, type HighlightRequest } from './highlights.js';
import { mergeWindowPicks, picksPerWindow, planWindows } from './windows.js';
import { writeCopies } from './copywriter.js';
import { analyseAudio } from './audio-features.js';
import { placeClipEdges } from './clip-edges.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { RangeAudio } from '../transcribe/speech-audio.js';
import type { ClipCopy, Highlight, PreferredLength } from '../../domain/highlight.js';
import type { HeatmapPoint } from '../../domain/source.js';
import type { TimeRange } from '../../domain/time.js';
import type { Transcript } from '../../domain/transcript.js';

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
  /** The range's speech audio when the caller has it (the transcriber's): the clip edges read it instead of decoding. */
  audio?: RangeAudio;
  /** Runs ffmpeg; default defaultMediaRunner(). */
  media?: MediaRunner;
  signal?: AbortSignal;
}

export interface Moment { highlight: Highlight; copy: ClipCopy }

/** Ranked moments, best first; [] when no segment of the range can stand alone as a clip. */
export async function pickMoments(req: MomentsRequest): Promise<Moment[]> {
  const picked = await detect(req);
  // Edges out of the recognised word times into the pauses really there (clip-edges.ts).
  const highlights = await placeClipEdges(picked, {
    mediaPath: req.mediaPath, transcript: req.transcript, range: req.range, noClipping: req.noClipping, audio: req.audio, media: req.media, signal: req.signal,
  });
  // Copy for the whole request at once, so no two clips share a title or a description.
  const copies = writeCopies(highlights, req.transcript);
  return highlights.map((highlight, k) => ({ highlight, copy: copies[k]! }));
}

/**
 * The highlights of the range: one pass when it fits one window (exactly as before windows existed),
 * else one pass per window, each with that window's audio only (read, scored, dropped: memory stays that
 * of one window), merged and ranked together. noClipping makes the whole range the clip, whatever its length.
 */
async function detect(req: MomentsRequest): Promise<Highlight[]> {
  const common: Omit<HighlightRequest, 'audio' | 'range' | 'maxShorts'> = {
    transcript: req.transcript, heatmap: req.heatmap, preferredLength: req.preferredLength, noClipping: req.noClipping, lexical: req.lexical,
  };
  const windows = req.noClipping ? [req.range] : planWindows(req.range, req.preferredLength);
  if (windows.length === 1) {
    const audio = await analyseAudio(req.mediaPath, req.range, req.signal, req.media);
    return findHighlights({ ...common, audio, range: req.range, maxShorts: req.maxShorts });
  }
  const perWindow: Highlight[][] = [];
  for (const window of windows) {
    const audio = await analyseAudio(req.mediaPath, window, req.signal, req.media);
    perWindow.push(findHighlights({ ...common, audio, range: window, maxShorts: picksPerWindow(req.maxShorts) }));
  }
  return mergeWindowPicks(perWindow, {
    range: req.range, maxShorts: req.maxShorts, preferredLength: req.preferredLength, sentences: req.transcript.sentences,
    language: req.transcript.language, lexical: req.lexical,
  });
}
