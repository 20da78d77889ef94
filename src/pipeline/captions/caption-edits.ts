// Caption corrections (issue 14): a misheard word fixed in a clip's burned captions without touching the
// transcript. Two ways to say what to change, both about the captions as the user saw them:
//   - per-word replacements, by the word's number: `word` counts the clip's caption words from 1 in time
//     order (the numbers `shorts export --format json` prints beside each word); with `cue`, `word` counts
//     inside that cue, cues numbered from 1 as in the exported SRT/VTT;
//   - an SRT or WebVTT body (typically the exported file, fixed in a text editor): each cue's text replaces
//     the words whose midpoint lies inside that cue's time.
// Words keep their times: a word replaced one for one keeps its own; when a cue's text has more or fewer
// words than the words it covers, only the changed run is re-timed (spread over the time the replaced words
// took, in proportion to their spoken length). The transcript, and so the request's `sentences`, keeps
// what was recognised: only the caption cues change.
import * as mediaCaptions from 'media-captions';
import { ShortsError } from '../../errors.js';
import { hasNoSpaceScript, segmentWords, spokenLength } from '../shared/script-text.js';
import type { CaptionCue } from '../../domain/captions.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

/** One word replaced. `text` "" removes the word; several words ("going to") share its time. */
export interface WordEdit {
  /** 1-based cue number (the SRT/VTT export's numbering); absent: `word` counts over the whole clip. */
  cue?: number;
  /** 1-based word number: in the clip, or in `cue` when given. */
  word: number;
  text: string;
}

/** One cue of an uploaded SRT/WebVTT body, clip seconds, its text without markup. */
export interface SubtitleCue { start: number; end: number; text: string }

/** `captionEdits`, validated. Word edits apply first (by the numbers as seen), then the subtitle cues. */
export interface CaptionEdits {
  words: WordEdit[];
  /** The uploaded file's cues; null when none was given. */
  subtitles: SubtitleCue[] | null;
}

// media-captions' own .d.ts re-exports extensionless paths ('./parse/parse-text'), which NodeNext resolution
// cannot follow, so TypeScript sees an empty module: the one function used is typed here from its docs.
interface ParsedCue { startTime: number; endTime: number; text: string }
const { parseText } = mediaCaptions as unknown as {
  parseText(text: string, options: { type: 'srt' | 'vtt'; strict: boolean }): Promise<{ cues: ParsedCue[] }>;
};

const FIELD = 'captionEdits';
/** More than any clip has words (a 10-minute clip speaks ~1,600): a bound on work and on the stored request. */
const MAX_WORD_EDITS = 5000;
const MAX_WORD_TEXT = 200;
/** An SRT of a 10-minute clip is ~40 KB; the API body is capped at 1 MB anyway. */
const MAX_SUBTITLES_CHARS = 500_000;
/**
 * Most cells of one cue's word alignment (4 bytes each): a whole 10-minute clip in one cue against its own
 * text (~1,600 x 1,600) fits; a 500 KB cue against it would take gigabytes.
 */
const MAX_ALIGN_CELLS = 4_000_000;

function invalid(message: string): ShortsError {
  return new ShortsError('invalid_request', `${FIELD}${message}`, { field: FIELD });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positiveInt(v: unknown, at: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw invalid(`${at} must be a whole number from 1 (got ${JSON.stringify(v)})`);
  return v;
}

/** Text as a caption shows it: one line, no control characters. */
function cleanText(text: string): string {
  return text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
}

/**
 * Validates the API field `captionEdits`:
 * `{ words?: [{ word: N, text } | { cue: C, word: N, text }], subtitles?: "<SRT or WebVTT body>" }`,
 * at least one of them. Throws ShortsError invalid_request naming `captionEdits` (details.field) with the
 * exact place that is wrong. Word numbers are checked against the clip later, by applyCaptionEdits.
 */
export async function parseCaptionEdits(raw: unknown): Promise<CaptionEdits> {
  if (!isRecord(raw)) throw invalid(' must be an object: { "words": [{ "word": 3, "text": "…" }], "subtitles": "<SRT or WebVTT>" }');
  for (const key of Object.keys(raw)) {
    if (key !== 'words' && key !== 'subtitles') throw invalid(`.${key} is not a known field (words, subtitles)`);
  }
  if (raw.words === undefined && raw.subtitles === undefined) throw invalid(' needs `words` or `subtitles`');
  const words: WordEdit[] = [];
  if (raw.words !== undefined) {
    if (!Array.isArray(raw.words)) throw invalid('.words must be an array of { word, text }');
    if (raw.words.length > MAX_WORD_EDITS) throw invalid(`.words has ${raw.words.length} edits; at most ${MAX_WORD_EDITS}`);
    const seen = new Set<string>();
    raw.words.forEach((item: unknown, i) => {
      const at = `.words[${i}]`;
      if (!isRecord(item)) throw invalid(`${at} must be an object { word, text }`);
      for (const key of Object.keys(item)) if (key !== 'cue' && key !== 'word' && key !== 'text') throw invalid(`${at}.${key} is not a known field (cue, word, text)`);
      const word = positiveInt(item.word, `${at}.word`);
      const cue = item.cue === undefined ? undefined : positiveInt(item.cue, `${at}.cue`);
      if (typeof item.text !== 'string') throw invalid(`${at}.text must be a string ("" removes the word)`);
      if (item.text.length > MAX_WORD_TEXT) throw invalid(`${at}.text is longer than ${MAX_WORD_TEXT} characters`);
      const key = cue === undefined ? `${word}` : `${cue}.${word}`;
      if (seen.has(key)) throw invalid(`${at} edits word ${key} a second time`);
      seen.add(key);
      words.push({ ...(cue !== undefined ? { cue } : {}), word, text: cleanText(item.text) });
    });
  }
  let subtitles: SubtitleCue[] | null = null;
  if (raw.subtitles !== undefined) {
    if (typeof raw.subtitles !== 'string') throw invalid('.subtitles must be the text of an SRT or WebVTT file');
    subtitles = await parseSubtitles(raw.subtitles);
  }
  return { words, subtitles };
}

/** SRT or WebVTT (told apart by the WEBVTT header WebVTT requires). */
export function subtitleFormat(body: string): 'srt' | 'vtt' {
  return /^\uFEFF?WEBVTT(?:[ \t].*)?$/m.test(body.split(/\r?\n/, 1)[0] ?? '') ? 'vtt' : 'srt';
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', nbsp: ' ', quot: '"', apos: "'", lrm: '\u200e', rlm: '\u200f' };

/**
 * A cue's text without markup. WebVTT: every tag (<i>, <v Speaker>, <c.class>, <00:01.000>) goes, then
 * its character references are decoded (a literal "<" is written &lt; there). SRT has no escaping, so
 * only the tags players know are markup (<i> <b> <u> <s> <font …>, and {\an8}-style ASS overrides):
 * a literal "<team>" that an SRT export wrote stays a word.
 */
function plainCueText(text: string, format: 'srt' | 'vtt'): string {
  const untagged = format === 'vtt'
    ? text.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    : text.replace(/<\/?(?:[ibus]|font(?:\s[^>]*)?)>/gi, '');
  // The text as a player shows it: "<i>Kuber</i>netes" is one word.
  return cleanText(untagged.replace(/\{\\[^}]*\}/g, ''));
}

/**
 * Parses an SRT or WebVTT body with media-captions (strict: a malformed timestamp is an error with its
 * line). A cue the parser had to drop (end before start, say) is an error too, rather than words that
 * silently keep their old text: the file's `-->` lines are counted against the cues read.
 */
export async function parseSubtitles(body: string): Promise<SubtitleCue[]> {
  if (body.length > MAX_SUBTITLES_CHARS) throw invalid(`.subtitles is longer than ${MAX_SUBTITLES_CHARS} characters`);
  const text = body.replace(/^\uFEFF/, '');
  const type = subtitleFormat(text);
  const label = type === 'vtt' ? 'WebVTT' : 'SRT';
  let cues: ParsedCue[];
  try {
    ({ cues } = await parseText(text, { type, strict: true }));
  } catch (e) {
    const line = (e as { line?: unknown }).line;
    throw invalid(`.subtitles is not valid ${label}${typeof line === 'number' ? ` (line ${line})` : ''}: ${(e as Error).message}`);
  }
  const arrows = text.split(/\r?\n/).filter((l) => /-->/.test(l)).length;
  if (arrows === 0) throw invalid(`.subtitles holds no ${label} cue (expected "00:00:01,000 --> 00:00:02,000" lines followed by text)`);
  if (cues.length !== arrows) {
    throw invalid(`.subtitles: ${arrows - cues.length} of its ${arrows} ${label} cues could not be read (a cue must end after it starts)`);
  }
  return cues.map((c) => ({ start: c.startTime, end: c.endTime, text: plainCueText(c.text, type) }));
}

/** A word as numbered for users: `n` over the clip, `cue`/`inCue` as in the SRT/VTT export (all 1-based). */
export interface NumberedWord { n: number; cue: number; inCue: number; text: string; start: number; end: number }

/**
 * The numbers `--word N=text` and `captionEdits.words` refer to, for the JSON export and `shorts get`-like
 * listings: every caption word of the clip in cue order, clip seconds.
 */
export function numberCaptionWords(cues: readonly CaptionCue[]): NumberedWord[] {
  const out: NumberedWord[] = [];
  cues.forEach((cue, c) => cue.words.forEach((w, i) => out.push({ n: out.length + 1, cue: c + 1, inCue: i + 1, text: w.text, start: w.start, end: w.end })));
  return out;
}

/** One word of the caption being edited, with the cue it is shown in. */
interface Slot { cue: number; word: Word }

const ms = (s: number) => Math.round(s * 1000) / 1000;

/** The cue text split into words: whitespace, or the segmenter for scripts written without spaces. */
function tokens(text: string): string[] {
  if (!text) return [];
  return hasNoSpaceScript(text) ? segmentWords(text).map((w) => w.text) : text.split(' ').filter(Boolean);
}

/** What two words must share to count as the same word: letters and digits, case-folded. */
function key(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * New words spread over [start, end] in proportion to how long each takes to say (at least one letter
 * each), so a run of corrected words is highlighted across the time the replaced words were heard.
 */
function spread(texts: string[], start: number, end: number, probability: number): Word[] {
  const weights = texts.map((t) => Math.max(1, spokenLength(t)));
  const total = weights.reduce((a, b) => a + b, 0);
  let at = start;
  return texts.map((text, i) => {
    const from = at;
    at = i === texts.length - 1 ? end : at + ((end - start) * weights[i]!) / total;
    return { text, start: ms(from), end: ms(at), probability };
  });
}

/** The cue of `slots` whose word span holds time t (the nearest one otherwise). */
function cueAt(slots: Slot[], t: number): number {
  let best = slots[0]!;
  let gap = Infinity;
  for (const s of slots) {
    const d = t < s.word.start ? s.word.start - t : t > s.word.end ? t - s.word.end : 0;
    if (d < gap) { gap = d; best = s; }
  }
  return best.cue;
}

/**
 * Replaces `old` words by `texts`: equal words (case and punctuation aside) are matched by a longest
 * common subsequence and keep their times (taking the new spelling); a run changed one for one keeps the
 * old times; a run of another length is spread over the replaced words' time; added words with nothing
 * replaced join the word before them (or after, at the start), sharing its time.
 */
function replaceRun(old: Slot[], texts: string[]): Slot[] {
  if (old.length === 0) return [];
  const a = old.map((s) => key(s.word.text));
  const b = texts.map(key);
  // LCS table over word keys (cues hold a handful of words; a whole clip a few thousand at most).
  const n = a.length, m = b.length;
  if (n * m > MAX_ALIGN_CELLS) {
    throw invalid(`.subtitles: a cue of ${m} words over ${n} caption words is more than one cue can be matched against; split it into shorter cues`);
  }
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) {
    lcs[i]![j] = a[i] === b[j] && a[i] !== '' ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (a[i] === b[j] && a[i] !== '') { pairs.push([i, j]); i++; j++; }
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  pairs.push([n, m]);
  const out: Slot[] = [];
  let i = 0, j = 0;
  const orphans: string[] = [];
  for (const [pi, pj] of pairs) {
    const gone = old.slice(i, pi);
    const added = texts.slice(j, pj);
    if (gone.length === added.length) {
      gone.forEach((s, k) => out.push({ cue: s.cue, word: { ...s.word, text: added[k]! } }));
    } else if (gone.length > 0 && added.length > 0) {
      const first = gone[0]!.word, last = gone[gone.length - 1]!.word;
      const p = Math.min(...gone.map((s) => s.word.probability));
      for (const w of spread(added, first.start, last.end, p)) out.push({ cue: cueAt(gone, (w.start + w.end) / 2), word: w });
    } else if (added.length > 0) {
      // Inserted words: nothing was heard for them on their own, so they ride on a neighbour's time.
      const prev = out[out.length - 1];
      if (prev) prev.word = { ...prev.word, text: `${prev.word.text} ${added.join(' ')}` };
      else orphans.push(...added);
    }
    if (pi < n) {
      const s = old[pi]!;
      out.push({ cue: s.cue, word: { ...s.word, text: texts[pj]! } });
      if (orphans.length) {
        out[out.length - 1]!.word.text = `${orphans.join(' ')} ${texts[pj]!}`;
        orphans.length = 0;
      }
    }
    i = pi + 1;
    j = pj + 1;
  }
  return out;
}

function wordEditsApplied(slots: Slot[], cues: readonly CaptionCue[], edits: WordEdit[]): Slot[] {
  if (edits.length === 0) return slots;
  const firstOfCue: number[] = [];
  let count = 0;
  for (const cue of cues) { firstOfCue.push(count); count += cue.words.length; }
  const replacement = new Map<number, string>();
  edits.forEach((e, i) => {
    let at: number;
    if (e.cue !== undefined) {
      if (e.cue > cues.length) throw invalid(`.words[${i}].cue ${e.cue}: the clip's captions have ${cues.length} cues`);
      const inCue = cues[e.cue - 1]!.words.length;
      if (e.word > inCue) throw invalid(`.words[${i}].word ${e.word}: cue ${e.cue} has ${inCue} word${inCue === 1 ? '' : 's'}`);
      at = firstOfCue[e.cue - 1]! + e.word - 1;
    } else {
      if (e.word > count) throw invalid(`.words[${i}].word ${e.word}: the clip's captions have ${count} word${count === 1 ? '' : 's'}`);
      at = e.word - 1;
    }
    if (replacement.has(at)) throw invalid(`.words[${i}] edits a word another edit already changes`);
    replacement.set(at, e.text);
  });
  return slots.flatMap((s, at) => {
    const text = replacement.get(at);
    if (text === undefined) return [s];
    const parts = tokens(text);
    // Several words for one: each gets its share of the word's time (the highlight moves across them).
    return spread(parts, s.word.start, s.word.end, s.word.probability).map((word) => ({ cue: s.cue, word }));
  });
}

function subtitlesApplied(slots: Slot[], cues: readonly CaptionCue[], subtitles: SubtitleCue[], newCues: { start: number; end: number }[]): Slot[] {
  let rest = slots;
  // Words a subtitle cue wrote are not rewritten by a later cue overlapping it.
  const written = new WeakSet<Slot>();
  for (const sub of [...subtitles].sort((x, y) => x.start - y.start)) {
    const mid = (s: Slot) => (s.word.start + s.word.end) / 2;
    const inside = (s: Slot) => !written.has(s) && mid(s) >= sub.start && mid(s) < sub.end;
    const covered = rest.filter(inside);
    const texts = tokens(sub.text);
    let replaced: Slot[];
    if (covered.length) replaced = replaceRun(covered, texts);
    else if (rest.some((s) => written.has(s) && mid(s) >= sub.start && mid(s) < sub.end)) replaced = [];
    else if (texts.length) {
      // Words for a time that had none: inside the caption shown then (during its linger, say), so two
      // captions never share the screen; else a new cue at the subtitle's own time.
      let host = -1, overlap = 0;
      cues.forEach((c, i) => {
        const o = Math.min(c.end, sub.end) - Math.max(c.start, sub.start);
        if (o > overlap) { overlap = o; host = i; }
      });
      if (host >= 0) {
        const c = cues[host]!;
        replaced = spread(texts, Math.max(c.start, sub.start), Math.min(c.end, sub.end), 1).map((word) => ({ cue: host, word }));
      } else {
        newCues.push({ start: ms(sub.start), end: ms(sub.end) });
        replaced = spread(texts, sub.start, sub.end, 1).map((word) => ({ cue: -newCues.length, word }));
      }
    } else replaced = [];
    replaced.forEach((s) => written.add(s));
    // Put the replacement where the covered words were, keeping the order of everything else.
    const firstAt = rest.findIndex(inside);
    const kept = rest.filter((s) => !inside(s));
    const insertAt = firstAt >= 0 ? firstAt : kept.findIndex((s) => s.word.start >= sub.start);
    const at = insertAt < 0 ? kept.length : insertAt;
    rest = [...kept.slice(0, at), ...replaced, ...kept.slice(at)];
  }
  return rest;
}

/**
 * The clip's caption cues with the edits applied: same cues and cue times (a cue left without words is
 * dropped; a subtitle cue over a time without words becomes a new cue), words in time order. Throws
 * invalid_request naming `captionEdits` for a word or cue number the captions do not have, so a caller
 * can check edits against the stored cues before accepting a re-render. Cues translated from other
 * speech keep `spoken` (emoji accents follow the meaning, not the corrected spelling).
 *
 * `subtitleOffset`: where clip time 0 lies in the subtitles' time. The SRT/VTT export is in the MP4's
 * time, which starts with the meme intro when the clip has one; pass its length so the file a user
 * exported and fixed lines up with the words (default 0).
 */
export function applyCaptionEdits(cues: readonly CaptionCue[], edits: CaptionEdits, opts: { subtitleOffset?: number } = {}): CaptionCue[] {
  let slots: Slot[] = cues.flatMap((cue, c) => cue.words.map((word) => ({ cue: c, word: { ...word } })));
  slots = wordEditsApplied(slots, cues, edits.words);
  const added: { start: number; end: number }[] = [];
  const offset = opts.subtitleOffset ?? 0;
  if (edits.subtitles) {
    const inClip = edits.subtitles.map((c) => ({ ...c, start: Math.max(0, c.start - offset), end: c.end - offset })).filter((c) => c.end > 0);
    slots = subtitlesApplied(slots, cues, inClip, added);
  }
  const out: (CaptionCue & { order: number })[] = [];
  cues.forEach((cue, c) => {
    const words = slots.filter((s) => s.cue === c && s.word.text).map((s) => s.word);
    if (words.length) out.push({ ...cue, words: words.sort((x, y) => x.start - y.start), order: c });
  });
  added.forEach((span, k) => {
    const words = slots.filter((s) => s.cue === -(k + 1) && s.word.text).map((s) => s.word);
    if (words.length) out.push({ start: span.start, end: span.end, words, order: cues.length + k });
  });
  return out.sort((x, y) => x.start - y.start || x.order - y.order).map(({ order: _order, ...cue }) => cue);
}

/**
 * The words a clip's captions show, in source time: `edited` (clip-time cues of the clip over
 * `editedRange`, corrections included) inside that range, the transcript's words outside it. A re-render
 * over a moved or longer range builds its cues from these (buildCues), so corrections made before stay.
 */
export function wordsWithEdits(transcriptWords: readonly Word[], edited: readonly CaptionCue[], editedRange: TimeRange): Word[] {
  const mid = (w: Word) => (w.start + w.end) / 2;
  const outside = transcriptWords.filter((w) => mid(w) < editedRange.start || mid(w) >= editedRange.end);
  const inside = edited.flatMap((c) => c.words).map((w) => ({ ...w, start: ms(w.start + editedRange.start), end: ms(w.end + editedRange.start) }));
  return [...outside, ...inside].sort((a, b) => a.start - b.start);
}

/**
 * `--word N=text` (CLI): "12=Kubernetes" (word 12 of the clip) or "3.2=k8s" (word 2 of cue 3), as the API's
 * `captionEdits.words` item. Throws invalid_request naming the flag's value when it is not of that form.
 */
export function wordEditFromFlag(value: string): WordEdit {
  const m = /^\s*(?:(\d+)\.)?(\d+)\s*=(.*)$/s.exec(value);
  if (!m) throw new ShortsError('invalid_request', `--word expects N=text or CUE.N=text (word numbers as in \`shorts export --format json\`), got "${value.slice(0, 60)}"`, { field: FIELD });
  const word = Number(m[2]);
  const cue = m[1] !== undefined ? Number(m[1]) : undefined;
  if (word < 1 || (cue !== undefined && cue < 1)) throw new ShortsError('invalid_request', `--word numbers start at 1, got "${value.slice(0, 60)}"`, { field: FIELD });
  return { ...(cue !== undefined ? { cue } : {}), word, text: m[3]! };
}

/**
 * The API body's `captionEdits` from the CLI's `--captions-file F.srt|.vtt` (its text) and `--word` flags;
 * undefined when neither was given. Validation happens where the body is read (parseCaptionEdits).
 */
export function captionEditsFromFlags(opts: { captionsFileText?: string; words?: readonly string[] }): { words?: WordEdit[]; subtitles?: string } | undefined {
  const words = (opts.words ?? []).map(wordEditFromFlag);
  if (!words.length && opts.captionsFileText === undefined) return undefined;
  return { ...(words.length ? { words } : {}), ...(opts.captionsFileText !== undefined ? { subtitles: opts.captionsFileText } : {}) };
}
