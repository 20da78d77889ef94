// Clean clip edges: a clip's start and end as recognised (the first word's start, the last word's end)
// are moved into the pause that is really there. Recognisers place word times 100-200 ms off either
// way, so cutting at them lands inside words (measured: 10 of 18 edges had speech within 80 ms across
// the cut). For each edge only a few seconds of audio around it are decoded (ffmpeg input seeking),
// cut into 10 ms frames (read from the range's speech audio when the caller has it: one decode for every edge), and the pause is found by frame energy relative to the local speech level:
// the cut then sits in that pause with a short lead before the first word and a tail after the last,
// keeping EDGE_GUARD_SEC of silence on both sides of it when the pause is long enough. Where there is
// no pause at all (speech over music, fast talk) the cut goes to the quietest point between the words.
// The render adds a few milliseconds of fade at each edge (ffmpeg-args.ts), so nothing clicks.
import { defaultMediaRunner } from '../../media/local-runner.js';
import { AbortedError } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { RangeAudio } from '../transcribe/speech-audio.js';
import type { Highlight } from '../../domain/highlight.js';
import type { TimeRange } from '../../domain/time.js';
import type { Transcript, Word } from '../../domain/transcript.js';

/** Silence kept on each side of a cut when the pause allows: 80 ms plus one analysis frame. */
export const EDGE_GUARD_SEC = 0.09;
/** Silence left before the first word: the clip does not start abruptly on the word. */
export const LEAD_SEC = 0.2;
/** Silence left after the last word: its decay and the room's tail are not chopped off. */
export const TAIL_SEC = 0.3;
/** Analysis frame: short enough to see the gap between two words, long enough to average a pitch period. */
export const FRAME_SEC = 0.01;
const SAMPLE_RATE = 16_000;
/** Seconds of audio decoded on each side of a recognised edge: room for the pause and for the speech level. */
const CONTEXT_SEC = 1.5;
/** How far the real onset (or offset) may lie from the recognised one; beyond, a pause is not this word's. */
const SEARCH_SEC = 0.35;
/** How far a pause is looked for when none lies between the neighbouring words (their times are off). */
const WIDE_SEARCH_SEC = 0.9;
/** A quiet run shorter than this is a stop consonant inside a word, not a pause. */
const MIN_PAUSE_SEC = 0.05;
/**
 * Below this spread between the loud and the quiet frames of the window there is no silence to find
 * (music or noise under the voice): the cut goes to the quietest point instead.
 */
const MIN_CONTRAST_DB = 20;
/** A pause's cut is kept when its guard is at most this much louder than the quietest cut's. */
const PAUSE_SLACK_DB = 6;
/** The quietest-cut search reaches this far outside the recognised edge, and this far inside it. */
const QUIET_SEARCH_OUT_SEC = 0.5;
const QUIET_SEARCH_IN_SEC = 0.15;
/** Distance from the preferred point that costs as much as 1 dB more level: 100 ms. */
const DISTANCE_DB_PER_SEC = 10;
/** Frames this far under the speech level are quiet whatever the floor (breaths stay above it). */
const BELOW_SPEECH_DB = 35;
/** ... and frames this far above the noise floor are never quiet. */
const ABOVE_FLOOR_DB = 10;

/** Frame energies (dB re full scale) of a stretch of audio starting at `start` (source seconds). */
export interface EnergyTrack { start: number; frameSec: number; db: Float64Array }

/** Where one edge was put, and how it was found. */
export interface EdgeCut {
  time: number;
  /**
   * 'pause': in a pause, quiet for EDGE_GUARD_SEC on both sides; 'quietest': no such pause, the
   * quietest point between the words; 'kept': no audio to analyse.
   */
  kind: 'pause' | 'quietest' | 'kept';
  /** How far under the window's speech level the loudest frame within EDGE_GUARD_SEC of the cut is (dB). */
  underSpeechDb?: number;
}

export interface ClipEdgesRequest {
  mediaPath: string;
  transcript: Transcript;
  /** The requested range: no edge moves outside it. */
  range: TimeRange;
  /** The whole range is the clip (spec noClipping): the user chose the edges, they are kept. */
  noClipping?: boolean;
  /** The range's speech audio, decoded once for every edge; without it each edge decodes its own window. */
  audio?: RangeAudio;
  /** Runs ffmpeg when there is no `audio`; default defaultMediaRunner(). */
  media?: MediaRunner;
  signal?: AbortSignal;
}

/**
 * The highlights with their start and end moved into the pauses around them. Picks stay in order and
 * never overlap: when two clips meet in one pause, they share one cut in it.
 */
export async function placeClipEdges(highlights: Highlight[], req: ClipEdgesRequest): Promise<Highlight[]> {
  if (req.noClipping || highlights.length === 0) return highlights;
  // Spoken order: recognisers give words of one instant (zero-length words at the same time), so the
  // neighbours of a clip are found by position, not by time.
  const words = req.transcript.words.map((w, i) => ({ w, i })).sort((a, b) => a.w.start - b.w.start || a.i - b.i).map((x) => x.w);
  const sentences = new Map(req.transcript.sentences.map((s) => [s.index, s]));
  const placed: Placed[] = [];
  for (const h of highlights) {
    const own = h.sentenceIndexes.flatMap((i) => sentences.get(i)?.words ?? []).filter((w) => w.end >= w.start);
    if (own.length === 0) {
      placed.push({ h, startKind: 'kept', endKind: 'kept' });
      continue;
    }
    const first = own.reduce((a, b) => (b.start < a.start ? b : a));
    const last = own.reduce((a, b) => (b.end > a.end ? b : a));
    const at = (w: Word) => {
      const i = words.indexOf(w);
      return i >= 0 ? i : words.findIndex((x) => x.start === w.start && x.end === w.end && x.text === w.text);
    };
    const firstAt = at(first), lastAt = at(last);
    const before = firstAt > 0 ? words[firstAt - 1]! : null;
    const after = lastAt >= 0 && lastAt + 1 < words.length ? words[lastAt + 1]! : null;
    const start = await cutAt('start', first, before, req);
    const end = await cutAt('end', last, after, req);
    placed.push(end.time > start.time
      ? { h: { ...h, start: start.time, end: end.time }, startKind: start.kind, endKind: end.kind }
      : { h, startKind: 'kept', endKind: 'kept' });
  }
  return separate(placed, highlights);
}

/**
 * One edge: decode CONTEXT_SEC either side of the recognised time and place the cut. `word` is the
 * clip's first (start) or last (end) word, `neighbour` the word just outside the clip: the cut stays
 * between their middles, so the captions (which take a word when its middle is inside the clip) show
 * exactly the clip's words.
 */
async function cutAt(edge: 'start' | 'end', word: Word, neighbour: Word | null, req: ClipEdgesRequest): Promise<EdgeCut> {
  const at = edge === 'start' ? word.start : word.end;
  const mid = (word.start + word.end) / 2;
  let bounds = edge === 'start'
    ? { min: Math.max(req.range.start, neighbour ? (neighbour.start + neighbour.end) / 2 + 0.001 : -Infinity), max: Math.max(req.range.start, mid - 0.001) }
    : { min: Math.min(req.range.end, mid + 0.001), max: Math.min(req.range.end, neighbour ? (neighbour.start + neighbour.end) / 2 - 0.001 : Infinity) };
  // Words stacked at one instant (zero-length words at the same time: the recogniser lost their timing)
  // leave no room between their middles. Their captions cannot be right either way; the cut must not
  // go through speech, so it searches as far as word times can be off.
  if (!(bounds.max - bounds.min > 0.02)) bounds = { min: Math.max(req.range.start, at - SEARCH_SEC), max: Math.min(req.range.end, at + SEARCH_SEC) };
  const fallback: EdgeCut = { time: Math.min(bounds.max, Math.max(bounds.min, at)), kind: 'kept' };
  if (!(bounds.max > bounds.min)) return fallback;
  const window = { start: Math.max(req.range.start, at - CONTEXT_SEC), end: Math.min(req.range.end, at + CONTEXT_SEC) };
  if (!(window.end - window.start > 0.2)) return fallback;
  const samples = await decodeWindow(req, window);
  if (!samples) return fallback;
  const track = energyTrack(samples, SAMPLE_RATE, window.start);
  const edges = { atRangeStart: window.start <= req.range.start + 1e-6, atRangeEnd: window.end >= req.range.end - 1e-6 };
  const cut = findCut(track, edge, word, bounds, edges) ?? fallback;
  if (cut.kind === 'pause') return cut;
  // No clean pause between the neighbouring words' middles: the word times are further off than usual
  // (whisper drifted 0.75 s in JFK's long words). Cutting through a word is the worse fault, so a real
  // pause up to WIDE_SEARCH_SEC away wins over keeping the captions' word split; but never past the
  // clip's own first (last) word as recognised, so a clip does not lose a word to a pause inside it.
  const wide = edge === 'start'
    ? { min: Math.max(req.range.start, at - WIDE_SEARCH_SEC), max: Math.min(req.range.end, at + WIDE_SEARCH_SEC, word.end) }
    : { min: Math.max(req.range.start, at - WIDE_SEARCH_SEC, word.start), max: Math.min(req.range.end, at + WIDE_SEARCH_SEC) };
  const far = findCut(track, edge, word, wide, edges, WIDE_SEARCH_SEC);
  return far?.kind === 'pause' ? far : cut;
}

/** 16 kHz mono samples of `window`, or null when the source has no readable audio there. */
async function decodeWindow(req: ClipEdgesRequest, window: TimeRange): Promise<Int16Array | null> {
  const { signal } = req;
  try {
    if (req.audio?.covers(req.range)) return await req.audio.window(window, 'finding_highlights', signal);
    const { stdoutBytes } = await (req.media ?? defaultMediaRunner()).run('ffmpeg', edgeAudioArgs(req.mediaPath, window), { signal });
    // Copy: the Buffer's offset in its pool need not be 2-byte aligned.
    return new Int16Array(new Uint8Array(stdoutBytes.subarray(0, stdoutBytes.length & ~1)).buffer);
  } catch (e) {
    if (e instanceof AbortedError || signal?.aborted) throw e;
    // The edges are a refinement: a source whose audio cannot be read here keeps the recognised times.
    return null;
  }
}

/** ffmpeg arguments that decode just `window` of the first audio stream to raw 16 kHz mono PCM on stdout. */
export function edgeAudioArgs(mediaPath: string, window: TimeRange): string[] {
  return [
    '-hide_banner', '-nostdin', '-v', 'error',
    // Before -i: input seeking decodes only the window, also in a two-hour file.
    '-ss', window.start.toFixed(3), '-t', Math.max(0, window.end - window.start).toFixed(3), '-i', mediaPath,
    '-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', '-c:a', 'pcm_s16le', '-',
  ];
}

/** Energy (dB) of each FRAME_SEC frame; digital silence reads -120 dB. */
export function energyTrack(samples: Int16Array, sampleRate: number, start: number, frameSec = FRAME_SEC): EnergyTrack {
  const frame = Math.max(1, Math.round(sampleRate * frameSec));
  const n = Math.floor(samples.length / frame);
  const db = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) {
      const v = samples[i]! / 32768;
      sum += v * v;
    }
    db[f] = 10 * Math.log10(sum / frame + 1e-12);
  }
  return { start, frameSec: frame / sampleRate, db };
}

interface Run { a: number; b: number }

/**
 * The cut for one edge from the energy around it, or null when the window is too short to judge.
 * `bounds` limits where the cut may go (between the neighbouring words' middles, inside the range);
 * `edges` says whether the window's ends are the range's ends (no audio exists beyond them).
 */
export function findCut(track: EnergyTrack, edge: 'start' | 'end', word: Pick<Word, 'start' | 'end'>, bounds: { min: number; max: number },
  edges: { atRangeStart: boolean; atRangeEnd: boolean } = { atRangeStart: false, atRangeEnd: false }, searchSec = SEARCH_SEC): EdgeCut | null {
  const n = track.db.length;
  if (n < 10) return null;
  const t = (f: number) => track.start + f * track.frameSec;
  const clampTime = (x: number) => Math.min(bounds.max, Math.max(bounds.min, x));
  const sorted = Float64Array.from(track.db).sort();
  const speech = sorted[Math.floor(n * 0.9)]!;
  const floor = sorted[Math.floor(n * 0.1)]!;
  const at = edge === 'start' ? word.start : word.end;

  if (speech - floor >= MIN_CONTRAST_DB) {
    const threshold = Math.min(speech - 15, Math.max(floor + ABOVE_FLOOR_DB, speech - BELOW_SPEECH_DB));
    const runs = quietRuns(track.db, threshold).map((r) => ({ a: t(r.a), b: t(r.b) }));
    const trackStart = t(0), trackEnd = t(n);
    let best: Run | null = null, bestScore = -Infinity;
    for (const r of runs) {
      // The end of the pause before the first word is the word's real onset; the start of the pause
      // after the last word is its real offset.
      const boundary = edge === 'start' ? r.b : r.a;
      // A run touching the window's far side has no speech on that side inside the window: for a start
      // edge the run must end in speech, for an end edge it must start after speech.
      if (edge === 'start' && r.b >= trackEnd - 1e-9) continue;
      if (edge === 'end' && r.a <= trackStart + 1e-9) continue;
      const len = r.b - r.a;
      const open = (edge === 'start' && r.a <= trackStart + 1e-9) || (edge === 'end' && r.b >= trackEnd - 1e-9);
      const roomy = len >= 2 * EDGE_GUARD_SEC || open;
      // Far from the recognised time only a pause with room for a clean cut is believable.
      if (!roomy && (len < MIN_PAUSE_SEC || searchSec > SEARCH_SEC)) continue;
      if (Math.abs(boundary - at) > searchSec) continue;
      if (r.b <= bounds.min || r.a >= bounds.max) continue;
      // Long pauses near the recognised time win, most of all those with room for a clean cut; a stop
      // consonant's gap is short.
      const score = Math.min(len, 0.4) + (roomy ? 0.3 : 0) - 0.6 * Math.abs(boundary - at);
      if (score > bestScore) { best = r; bestScore = score; }
    }
    if (best) {
      // No audio exists before the range's start or after its end, so no guard is needed there.
      const guardA = edge === 'start' && edges.atRangeStart && best.a <= trackStart + 1e-9 ? 0 : EDGE_GUARD_SEC;
      const guardB = edge === 'end' && edges.atRangeEnd && best.b >= trackEnd - 1e-9 ? 0 : EDGE_GUARD_SEC;
      const lo = Math.max(bounds.min, best.a + guardA), hi = Math.min(bounds.max, best.b - guardB);
      const want = edge === 'start' ? best.b - LEAD_SEC : best.a + TAIL_SEC;
      // A pause shorter than two guards: its quietest point.
      const time = lo <= hi ? Math.min(hi, Math.max(lo, want)) : quietestIn(track, Math.max(best.a, bounds.min), Math.min(best.b, bounds.max), (best.a + best.b) / 2)?.time;
      if (time !== undefined) {
        // A clean cut: quiet all across the guard.
        const guard = guardLevel(track, time);
        if (guard < threshold) return { time: round3(clampTime(time)), kind: 'pause', underSpeechDb: speech - guard };
        // A pause too short for the guard, or (under music, noise) a dip inside speech: keep its cut
        // only when it is about as quiet as the quietest cut between the words.
        const quietest = quietestBetween(track, edge, at, bounds);
        const keep = !quietest || guard <= quietest.level + PAUSE_SLACK_DB;
        return { time: round3(clampTime(keep ? time : quietest.time)), kind: 'quietest', underSpeechDb: speech - (keep ? guard : quietest.level) };
      }
    }
  }
  // No silence near the word: the quietest point between the words.
  const q = quietestBetween(track, edge, at, bounds);
  return q === null ? null : { time: round3(clampTime(q.time)), kind: 'quietest', underSpeechDb: speech - q.level };
}

/**
 * The quietest cut near a recognised edge: searched from half a second outside the word to a little
 * inside it (a word time can be that far off, and the gap is outside), preferring a point a little
 * outside the word.
 */
function quietestBetween(track: EnergyTrack, edge: 'start' | 'end', at: number, bounds: { min: number; max: number }): { time: number; level: number } | null {
  const from = Math.max(bounds.min, edge === 'start' ? at - QUIET_SEARCH_OUT_SEC : at - QUIET_SEARCH_IN_SEC);
  const to = Math.min(bounds.max, edge === 'start' ? at + QUIET_SEARCH_IN_SEC : at + QUIET_SEARCH_OUT_SEC);
  return quietestIn(track, from, to, edge === 'start' ? at - 0.1 : at + 0.1);
}

/** The loudest frame (dB) within EDGE_GUARD_SEC of `time`: what a cut there would cut through. */
function guardLevel(track: EnergyTrack, time: number): number {
  const { db, frameSec, start } = track;
  let level = -Infinity;
  for (let f = 0; f < db.length; f++) {
    const centre = start + (f + 0.5) * frameSec;
    if (Math.abs(centre - time) <= EDGE_GUARD_SEC - frameSec / 2 + 1e-9) level = Math.max(level, db[f]!);
  }
  return level;
}

/** Maximal runs of frames under `threshold`, as frame indexes [a, b). */
function quietRuns(db: Float64Array, threshold: number): Run[] {
  const runs: Run[] = [];
  let start = -1;
  for (let f = 0; f <= db.length; f++) {
    const quiet = f < db.length && db[f]! < threshold;
    if (quiet && start < 0) start = f;
    if (!quiet && start >= 0) {
      runs.push({ a: start, b: f });
      start = -1;
    }
  }
  return runs;
}

/**
 * The cut in [from, to] (frame centres) with the quietest guard, i.e. whose loudest frame within
 * EDGE_GUARD_SEC is lowest: the criterion itself ("no speech within 80 ms across the cut"), which also
 * keeps a cut in a short gap between two words in the gap's middle. Ties, and differences of a few dB,
 * go to the point nearest `prefer` (DISTANCE_DB_PER_SEC). Null when the span holds no frame.
 */
function quietestIn(track: EnergyTrack, from: number, to: number, prefer: number): { time: number; level: number } | null {
  const { db, frameSec, start } = track;
  let best: { time: number; level: number } | null = null, bestCost = Infinity;
  for (let f = 0; f < db.length; f++) {
    const centre = start + (f + 0.5) * frameSec;
    if (centre < from - 1e-9 || centre > to + 1e-9) continue;
    const level = guardLevel(track, centre);
    const cost = level + DISTANCE_DB_PER_SEC * Math.abs(centre - prefer);
    if (cost < bestCost) { best = { time: centre, level }; bestCost = cost; }
  }
  return best;
}

interface Placed { h: Highlight; startKind: EdgeCut['kind']; endKind: EdgeCut['kind'] }

/**
 * Picks in their original (ranked) order, no two overlapping in time. Where a clip's new start falls
 * before the previous clip's new end (their edges met in one gap), both take one cut: the one found in
 * a pause when only one of them was (the other edge's word times were too far off to find it), else
 * the point between them. When that would leave a clip empty, its recognised edges are kept.
 */
function separate(placed: Placed[], original: Highlight[]): Highlight[] {
  const order = placed.map((_, i) => i).sort((a, b) => placed[a]!.h.start - placed[b]!.h.start);
  const out = placed.map((p) => ({ ...p.h }));
  for (let k = 1; k < order.length; k++) {
    const i = order[k - 1]!, j = order[k]!;
    const prev = out[i]!, cur = out[j]!;
    if (cur.start >= prev.end) continue;
    const prevClean = placed[i]!.endKind === 'pause', curClean = placed[j]!.startKind === 'pause';
    const meet = prevClean && !curClean ? prev.end : curClean && !prevClean ? cur.start : round3((cur.start + prev.end) / 2);
    prev.end = Math.max(prev.start + 0.001, Math.min(prev.end, meet));
    cur.start = Math.max(cur.start, prev.end);
  }
  return out.map((h, i) => (h.end > h.start ? h : original[i]!));
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
