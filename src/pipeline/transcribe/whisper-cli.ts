// whisper.cpp adapter: finds `whisper-cli`, builds its argument list (pure), runs it with progress and
// cancellation, and turns its full JSON output (-ojf: every token with offsets) into timed words.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defaultMediaRunner } from '../../media/local-runner.js';
import { ProcessError, lastLines } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { PipelineError } from '../../errors.js';
import { hasNoSpaceScript, segmentWords } from '../shared/script-text.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

const STAGE = 'transcribing_audio';

/** SHORTS_WHISPER_CLI, else the binary scripts/build-whisper.mjs builds inside nodejs-whisper at install. */
export function whisperCliPath(): string {
  const configured = process.env.SHORTS_WHISPER_CLI;
  if (configured) {
    if (!existsSync(configured)) throw new PipelineError(STAGE, `SHORTS_WHISPER_CLI=${configured} does not exist: point it at a whisper.cpp whisper-cli binary`);
    return configured;
  }
  let pkgDir: string;
  try {
    pkgDir = path.dirname(createRequire(import.meta.url).resolve('nodejs-whisper/package.json'));
  } catch {
    throw new PipelineError(STAGE, 'the speech recogniser is not installed (package nodejs-whisper is missing): run `npm ci`, or set SHORTS_WHISPER_CLI to a whisper-cli binary');
  }
  const bin = path.join(pkgDir, 'cpp', 'whisper.cpp', 'build', 'bin', 'whisper-cli');
  if (!existsSync(bin)) {
    throw new PipelineError(STAGE, 'the speech recogniser (whisper.cpp) has not been built: run `npm rebuild` or ' +
      '`node scripts/build-whisper.mjs` (needs cmake and a C++ compiler), or set SHORTS_WHISPER_CLI to a whisper-cli binary');
  }
  return bin;
}

/** How whisper.cpp decodes: the knobs measured in docs/benchmarks.md (issue 10). */
export interface DecodingOptions {
  /** Beam width; 1 is greedy. */
  beamSize: number;
  /** Candidates sampled per window when temperature fallback re-decodes it. */
  bestOf: number;
  /** Re-decode a window whose text looks degenerate (repetition, low log-probability) at a higher temperature. */
  temperatureFallback: boolean;
  /**
   * whisper.cpp's DTW token timestamps with this alignment-heads preset ("tiny.en", "base", ...), or null
   * for its default timestamp-token heuristic. DTW needs flash attention off.
   */
  dtwPreset: string | null;
}

export interface WhisperArgsInput {
  modelPath: string;
  wavPath: string;
  /** ISO code or "auto"; English-only models ignore it (whisper.cpp warns and uses English). */
  language: string;
  threads: number;
  /** Output path without extension; whisper-cli appends ".json". */
  outputBase: string;
  decoding: DecodingOptions;
  /** whisper.cpp's translate task: English text for speech in any language (multilingual models only). */
  translate?: boolean;
  /**
   * Keep whisper.cpp's log on (no -np): with language "auto" it is the only place the detected language
   * and its probability are printed ("auto-detected language: es (p = 0.86)").
   */
  log?: boolean;
}

/**
 * whisper.cpp's own default decoding (beam 5, temperature fallback) with flash attention: greedy decoding
 * took a third less CPU but lost words (LibriVox WER 8.5 % against 2.8 %, worse after a burst of noise).
 * DTW timestamps need flash attention off, which changed the words (LibriVox 5.6 %) and, once the
 * audio-based alignment of onset-align.ts ran, timed them no better (docs/benchmarks.md, issue 10).
 */
export const DEFAULT_DECODING: DecodingOptions = { beamSize: 5, bestOf: 5, temperatureFallback: true, dtwPreset: null };

export function whisperArgs(i: WhisperArgsInput): string[] {
  const d = i.decoding;
  return [
    '-m', i.modelPath, '-f', i.wavPath, '-l', i.language || 'auto', '-t', String(Math.max(1, Math.floor(i.threads))),
    '-bs', String(Math.max(1, Math.floor(d.beamSize))), '-bo', String(Math.max(1, Math.floor(d.bestOf))),
    ...(d.temperatureFallback ? [] : ['-nf']),
    ...(i.translate ? ['-tr'] : []),
    ...(d.dtwPreset ? ['-nfa', '-dtw', d.dtwPreset] : ['-fa']),
    '-ojf', '-of', i.outputBase, ...(i.log ? [] : ['-np']), '-pp',
  ];
}

// Alignment-head presets whisper.cpp knows (its --dtw names), by model family.
const DTW_PRESETS = new Set(['tiny', 'tiny.en', 'base', 'base.en', 'small', 'small.en', 'medium', 'medium.en',
  'large.v1', 'large.v2', 'large.v3', 'large.v3.turbo']);

/** The --dtw preset for a model name such as "tiny.en-q8_0" or "large-v3-turbo"; null when unknown. */
export function dtwPresetFor(modelName: string): string | null {
  const family = modelName.toLowerCase().replace(/^ggml-/, '').replace(/-(q\d_\d|f16|f32)$/, '').replace(/-/g, '.');
  return DTW_PRESETS.has(family) ? family : null;
}

/** Whole lines of a stream that arrives in chunks split anywhere. */
function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
}

/** Reads "progress = 42%" lines from whisper-cli's stderr, which may arrive split across chunks. */
export function progressParser(onFraction: (f: number) => void): (chunk: string) => void {
  return lineSplitter((line) => {
    const m = /progress\s*=\s*(\d+(?:\.\d+)?)\s*%/.exec(line);
    if (m?.[1]) onFraction(Math.min(1, Math.max(0, Number(m[1]) / 100)));
  });
}

/** Reads "auto-detected language: es (p = 0.859847)" from whisper-cli's stderr; null when absent. */
export function parseDetectedLanguage(stderr: string): { language: string; probability: number } | null {
  const m = /auto-detected language:\s*([a-z]{2,3}(?:-[a-z]+)?)\s*\(p\s*=\s*([0-9.]+)\)/i.exec(stderr);
  if (!m) return null;
  const probability = Number(m[2]);
  return { language: m[1]!.toLowerCase(), probability: Number.isFinite(probability) ? probability : 0 };
}

/** t_dtw: DTW time in 10 ms units (-1 when not computed); whisper.cpp stamps each token with the time the path leaves it. */
export interface WhisperToken { text: string; offsets: { from: number; to: number }; p?: number; t_dtw?: number }
export interface WhisperSegment { offsets: { from: number; to: number }; text: string; tokens?: WhisperToken[] }
export interface WhisperJson { result?: { language?: string }; transcription?: WhisperSegment[] }

/**
 * The environment every whisper-cli run gets. OpenMP threads spin while they wait by default; on a machine
 * that is also rendering, that spinning fights ffmpeg for the cores (measured: 11 s of JFK took 8-17 s
 * spinning, 2.4-3 s passive).
 */
export function whisperEnv(): NodeJS.ProcessEnv {
  return { ...process.env, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' };
}

/**
 * Runs whisper-cli and returns its parsed -ojf JSON. The file is read as latin1 so each token string keeps
 * its raw bytes: byte-level BPE splits non-ASCII characters across tokens, and decoding per token would
 * turn the halves into U+FFFD. Words are decoded as UTF-8 after their tokens are joined.
 */
export async function runWhisperCli(bin: string, input: WhisperArgsInput, opts: {
  signal?: AbortSignal; onProgress?: (f: number) => void; media?: MediaRunner;
  /** What whisper.cpp detected, for language "auto" with `log` on (read as the log streams, whatever its length). */
  onDetectedLanguage?: (found: { language: string; probability: number }) => void;
} = {}): Promise<WhisperJson> {
  const progress = progressParser((f) => opts.onProgress?.(f));
  const detected = lineSplitter((line) => {
    const found = opts.onDetectedLanguage ? parseDetectedLanguage(line) : null;
    if (found) opts.onDetectedLanguage!(found);
  });
  const onStderr = (chunk: string) => {
    progress(chunk);
    detected(chunk);
  };
  try {
    await (opts.media ?? defaultMediaRunner()).run('whisper-cli', whisperArgs(input), { program: bin, signal: opts.signal, env: whisperEnv(), onStderr });
  } catch (e) {
    if (e instanceof ProcessError) {
      const detail = e.code === null
        ? 'it crashed; on CPUs with AMX a whisper.cpp built with -march=native can crash on quantized models: rebuild it without AMX or use an f16 model'
        : lastLines(e.stderr, 2) || `exit code ${e.code}`;
      throw new PipelineError(STAGE, `speech recognition failed (${detail})`, { cause: e });
    }
    throw e;
  }
  const raw = await readFile(`${input.outputBase}.json`, 'latin1');
  try {
    return JSON.parse(raw) as WhisperJson;
  } catch (e) {
    throw new PipelineError(STAGE, 'speech recognition wrote unreadable output', { cause: e });
  }
}

const utf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');
// Special tokens: [_BEG_], [_TT_123], <|endoftext|> ...
const isSpecial = (t: string) => t.startsWith('[_') || t.startsWith('<|');
const PUNCT_ONLY = /^[\p{P}\p{S}]+$/u;
// Only ASCII whitespace: in the latin1 view, String#trim would also eat UTF-8 continuation bytes 0x85/0xA0.
const trimAscii = (s: string) => s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
const OPENING = /^[("'“‘[¿¡«]+$/u;

/** One token of a draft: where its bytes lie in the draft, its times, and its probability (null: punctuation). */
interface DraftToken { at: number; end: number; from: number; to: number; p: number | null; dtw: number; dtwPrev: number }
/**
 * Tokens up to the next space: one word of a spaced script, or a whole run of Chinese or Japanese
 * (which has no spaces to find words by) that is cut into words when it is finished.
 */
interface Draft { bytes: string; from: number; to: number; p: number[]; prefix: string; dtwOwn: number; dtwPrev: number; tokens: DraftToken[] }

/** Timed pieces of a draft before they become words: text plus times in ms and DTW stamps. */
interface DraftWord { text: string; from: number; to: number; p: number; dtwOwn: number; dtwPrev: number }

/**
 * A run written without spaces, cut into words by the segmenter (script-text.ts). Each word is timed
 * from the tokens its bytes came from: a token holding several words (or a word part of a token, or a
 * character split across tokens by byte-level BPE) shares its time span out in proportion to bytes.
 */
function splitRun(d: Draft, text: string, language?: string): DraftWord[] {
  // UTF-16 offset -> byte offset in d.bytes (the draft's bytes are the UTF-8 of `text`).
  const byteAt: number[] = [];
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    byteAt[i] = b;
    const cp = text.codePointAt(i)!;
    b += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (cp >= 0x10000) byteAt[++i] = b;
  }
  byteAt[text.length] = b;
  const timeAt = (byte: number, edge: 'start' | 'end') => {
    const t = edge === 'start' ? d.tokens.find((k) => byte < k.end) ?? d.tokens[d.tokens.length - 1]!
      : [...d.tokens].reverse().find((k) => byte > k.at) ?? d.tokens[0]!;
    const share = t.end > t.at ? Math.min(1, Math.max(0, (byte - t.at) / (t.end - t.at))) : 0;
    return t.from + share * Math.max(0, t.to - t.from);
  };
  return segmentWords(text, language).map((w, i) => {
    const from = byteAt[w.from]!, to = byteAt[w.to]!;
    const inside = d.tokens.filter((k) => k.end > from && k.at < to);
    const ps = inside.flatMap((k) => (k.p === null ? [] : [k.p]));
    const first = inside[0];
    return {
      text: (i === 0 ? d.prefix : '') + w.text,
      from: timeAt(from, 'start'),
      to: timeAt(to, 'end'),
      p: ps.length ? Math.min(...ps) : 0,
      dtwOwn: first && first.at === from ? first.dtw : -1,
      dtwPrev: first && first.at === from ? first.dtwPrev : -1,
    };
  });
}

/** Non-speech annotations Whisper writes as text: [BLANK_AUDIO], (music), [Music], *laughs*, ♪. */
function dropAnnotations(words: Word[]): Word[] {
  const out: Word[] = [];
  let closer: string | null = null;
  for (const w of words) {
    const t = w.text;
    if (closer) {
      if (t.includes(closer)) closer = null;
      continue;
    }
    const open = /^[[(*]/.exec(t)?.[0];
    if (open) {
      const close = open === '[' ? ']' : open === '(' ? ')' : '*';
      if (!t.slice(1).includes(close)) closer = close;
      continue;
    }
    const text = t.replace(/[♪♫🎵🎶]/gu, '').trim();
    if (text && !PUNCT_ONLY.test(text)) out.push({ ...w, text });
  }
  return out;
}

/**
 * Where a word's start comes from: whisper.cpp's token offsets (its timestamp-token heuristic), or DTW
 * ("dtw-own": the DTW time stamped on the word's first token; "dtw-prev": the one on the token before it,
 * since whisper.cpp stamps a token with the time the alignment path moves past it).
 */
export type WordTiming = 'offsets' | 'dtw-own' | 'dtw-prev';

export interface WordsOptions {
  timing?: WordTiming;
  /**
   * Re-times one segment's words (seconds from the start of the range) given the segment's span as
   * Whisper's timestamp tokens put it: those segment edges are the model's own predictions and far
   * better than its per-token times inside (onset-align.ts).
   */
  segmentAligner?: (words: Word[], segment: TimeRange) => Word[];
}

/**
 * Joins BPE tokens into words with absolute source times: a token with a leading space starts a word,
 * punctuation sticks to its word, times come from the tokens' offsets (ms from the start of the
 * extracted range) clamped to their segment, and probability is the least sure piece of the word.
 */
export function wordsFromWhisperJson(json: WhisperJson, range: TimeRange, opts: WordsOptions = {}): Word[] {
  const timing = opts.timing ?? 'offsets';
  const language = json.result?.language;
  const words: Word[] = [];
  const rangeLen = Math.max(0, range.end - range.start);
  let lastDtw = -1;
  for (const seg of json.transcription ?? []) {
    const segFrom = Math.max(0, seg.offsets.from);
    const segTo = Math.max(segFrom, seg.offsets.to);
    const segWords: Word[] = [];
    let draft: Draft | null = null;
    let prefix = '';
    const flush = () => {
      const d = draft as Draft | null;
      if (!d) return;
      draft = null;
      const clamp = (ms: number) => Math.min(rangeLen, Math.min(segTo, Math.max(segFrom, ms)) / 1000);
      const whole = utf8(d.bytes);
      const pieces: DraftWord[] = hasNoSpaceScript(whole) && d.tokens.length
        ? splitRun(d, whole, language)
        : [{ text: d.prefix + whole, from: d.from, to: d.to, p: d.p.length ? Math.min(...d.p) : 0, dtwOwn: d.dtwOwn, dtwPrev: d.dtwPrev }];
      for (const w of pieces) {
        const text = w.text.trim();
        if (!text) continue;
        const dtw = timing === 'dtw-own' ? w.dtwOwn : timing === 'dtw-prev' ? w.dtwPrev : -1;
        // DTW times are not bound to whisper's segment (that is the point): clamp to the range only.
        const start = dtw >= 0 ? Math.min(rangeLen, dtw / 100) : clamp(w.from);
        segWords.push({ text, start, end: Math.max(start, clamp(Math.max(w.from, w.to))), probability: w.p });
      }
    };
    for (const tok of seg.tokens ?? []) {
      if (isSpecial(tok.text)) continue;
      const tokDtw = typeof tok.t_dtw === 'number' ? tok.t_dtw : -1;
      const prevDtw = lastDtw;
      if (tokDtw >= 0) lastDtw = tokDtw;
      const decoded = utf8(tok.text);
      const bare = decoded.trim();
      // A token of spaces only (Whisper writes one between Chinese phrases) ends the word before it.
      if (!bare) {
        if (/^[ \t\r\n]+$/.test(tok.text)) flush();
        continue;
      }
      // Half of a multi-byte character decodes to U+FFFD: that is part of a word, not punctuation.
      const punct = PUNCT_ONLY.test(bare) && !bare.includes('\uFFFD');
      const p = typeof tok.p === 'number' ? tok.p : 0;
      // A spaced dash marks a speaker change in Whisper's output, not a word.
      if (punct && /^[-–—]+$/u.test(bare) && decoded.startsWith(' ')) continue;
      if (punct && OPENING.test(bare) && decoded.startsWith(' ')) {
        // An opening quote or bracket belongs to the word after it.
        flush();
        prefix += bare;
        continue;
      }
      const startsWord = decoded.startsWith(' ') && !punct;
      const current = draft as Draft | null;
      const piece = (at: number, bytes: string): DraftToken =>
        ({ at, end: at + bytes.length, from: tok.offsets.from, to: tok.offsets.to, p: punct ? null : p, dtw: tokDtw, dtwPrev: prevDtw });
      if (!current || startsWord) {
        flush();
        const bytes = trimAscii(tok.text);
        draft = { bytes, from: tok.offsets.from, to: tok.offsets.to, p: punct ? [] : [p], prefix, dtwOwn: tokDtw, dtwPrev: prevDtw, tokens: [piece(0, bytes)] };
        prefix = '';
      } else {
        const bytes = punct ? trimAscii(tok.text) : tok.text;
        current.tokens.push(piece(current.bytes.length, bytes));
        current.bytes += bytes;
        current.to = Math.max(current.to, tok.offsets.to);
        // Punctuation is near-certain or a guess about writing, not about what was said.
        if (!punct) current.p.push(p);
      }
    }
    flush();
    const kept = dropAnnotations(segWords);
    const segment = { start: Math.min(rangeLen, segFrom / 1000), end: Math.min(rangeLen, segTo / 1000) };
    for (const w of opts.segmentAligner && kept.length ? opts.segmentAligner(kept, segment) : kept) {
      words.push({ ...w, start: range.start + w.start, end: range.start + w.end });
    }
  }
  // Keep times monotonic: token offsets can overlap by a few ms at segment edges. A start is what captions
  // and cuts rely on, so an overlap shortens the word before rather than delaying this one.
  let prev: Word | null = null;
  for (const w of words) {
    if (prev && w.start < prev.end) {
      if (w.start < prev.start) w.start = prev.start;
      prev.end = w.start;
    }
    if (w.start < range.start) w.start = range.start;
    if (w.end < w.start) w.end = w.start;
    prev = w;
  }
  return words;
}
