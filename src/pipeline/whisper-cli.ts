// whisper.cpp adapter: finds `whisper-cli`, builds its argument list (pure), runs it with progress and
// cancellation, and turns its full JSON output (-ojf: every token with offsets) into timed words.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ProcessError, lastLines, runProcess } from '../media/process.js';
import { PipelineError } from '../service/errors.js';
import type { TimeRange, Word } from './types.js';

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

export interface WhisperArgsInput {
  modelPath: string;
  wavPath: string;
  /** ISO code or "auto"; English-only models ignore it (whisper.cpp warns and uses English). */
  language: string;
  threads: number;
  /** Output path without extension; whisper-cli appends ".json". */
  outputBase: string;
}

/** Greedy decoding with flash attention: ~2x faster than the default beam search of 5, same words here. */
export function whisperArgs(i: WhisperArgsInput): string[] {
  return [
    '-m', i.modelPath, '-f', i.wavPath, '-l', i.language || 'auto', '-t', String(Math.max(1, Math.floor(i.threads))),
    '-bs', '1', '-bo', '1', '-fa', '-ojf', '-of', i.outputBase, '-np', '-pp',
  ];
}

/** Reads "progress = 42%" lines from whisper-cli's stderr, which may arrive split across chunks. */
export function progressParser(onFraction: (f: number) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /progress\s*=\s*(\d+(?:\.\d+)?)\s*%/.exec(line);
      if (m?.[1]) onFraction(Math.min(1, Math.max(0, Number(m[1]) / 100)));
    }
  };
}

export interface WhisperToken { text: string; offsets: { from: number; to: number }; p?: number }
export interface WhisperSegment { offsets: { from: number; to: number }; text: string; tokens?: WhisperToken[] }
export interface WhisperJson { result?: { language?: string }; transcription?: WhisperSegment[] }

/**
 * Runs whisper-cli and returns its parsed -ojf JSON. The file is read as latin1 so each token string keeps
 * its raw bytes: byte-level BPE splits non-ASCII characters across tokens, and decoding per token would
 * turn the halves into U+FFFD. Words are decoded as UTF-8 after their tokens are joined.
 */
export async function runWhisperCli(bin: string, input: WhisperArgsInput, opts: { signal?: AbortSignal; onProgress?: (f: number) => void } = {}): Promise<WhisperJson> {
  try {
    // OpenMP threads spin while they wait by default; on a machine that is also rendering, that spinning
    // fights ffmpeg for the cores (measured: 11 s of JFK took 8-17 s spinning, 2.4-3 s passive).
    const env = { ...process.env, OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'PASSIVE' };
    await runProcess(bin, whisperArgs(input), { signal: opts.signal, env, onStderr: progressParser((f) => opts.onProgress?.(f)) });
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
// Scripts written without spaces: each token is its own word so captions can still be timed.
const NO_SPACE_SCRIPT = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

interface Draft { bytes: string; from: number; to: number; p: number[]; prefix: string }

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

/** 10 ms frames of the extracted audio marked as speech (1) or silence (0), by energy. */
export interface SpeechActivity { frameSec: number; voiced: Uint8Array }

/**
 * Energy-based speech activity of 16-bit PCM. Returns null when the audio has no clear silence (speech
 * over music, constant noise): there the energy says nothing about where words are.
 */
export function speechActivity(samples: Int16Array, sampleRate: number, frameSec = 0.01): SpeechActivity | null {
  const frame = Math.max(1, Math.round(sampleRate * frameSec));
  const n = Math.floor(samples.length / frame);
  if (n < 10) return null;
  const db = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) {
      const v = samples[i]! / 32768;
      sum += v * v;
    }
    db[f] = 10 * Math.log10(sum / frame + 1e-12);
  }
  const sorted = Float64Array.from(db).sort();
  const floor = sorted[Math.floor(n * 0.1)]!;
  const loud = sorted[Math.floor(n * 0.95)]!;
  if (loud - floor < 20 || loud < -50) return null;
  const threshold = Math.max(floor + 10, loud - 35);
  const voiced = new Uint8Array(n);
  for (let f = 0; f < n; f++) voiced[f] = db[f]! > threshold ? 1 : 0;
  // Close gaps shorter than 150 ms (stops and plosives inside words) so a word is one voiced run.
  const maxGap = Math.round(0.15 / frameSec);
  let lastVoiced = -1;
  for (let f = 0; f < n; f++) {
    if (!voiced[f]) continue;
    if (lastVoiced >= 0 && f - lastVoiced > 1 && f - lastVoiced <= maxGap) voiced.fill(1, lastVoiced + 1, f);
    lastVoiced = f;
  }
  return { frameSec, voiced };
}

function firstVoiced(a: SpeechActivity, from: number, to: number): number | null {
  const end = Math.min(a.voiced.length, Math.ceil(to / a.frameSec));
  for (let f = Math.max(0, Math.floor(from / a.frameSec)); f < end; f++) if (a.voiced[f]) return f * a.frameSec;
  return null;
}

function lastVoiced(a: SpeechActivity, from: number, to: number): number | null {
  const start = Math.max(0, Math.floor(from / a.frameSec));
  for (let f = Math.min(a.voiced.length, Math.ceil(to / a.frameSec)) - 1; f >= start; f--) if (a.voiced[f]) return (f + 1) * a.frameSec;
  return null;
}

/** End of the speech that starts at `from`, bridging pauses under 0.5 s, at most `limit`. */
function voicedRunEnd(a: SpeechActivity, from: number, limit: number): number {
  const maxGap = Math.round(0.5 / a.frameSec);
  const end = Math.min(a.voiced.length, Math.ceil(limit / a.frameSec));
  let last = Math.floor(from / a.frameSec);
  for (let f = last; f < end && f - last <= maxGap; f++) if (a.voiced[f]) last = f;
  return Math.min(limit, (last + 1) * a.frameSec);
}

/**
 * Whisper's own timestamps (without the costly DTW pass) tend to start a window's first segment at 0
 * even after seconds of silence, squeezing its words early. When a segment's words begin before the
 * speech in it (or run past its end), their times are mapped linearly onto the voiced span, so the
 * order and relative spacing Whisper found are kept. Times are seconds from the start of the audio.
 */
export function alignSegmentToSpeech(words: Word[], segment: TimeRange, activity: SpeechActivity | null): Word[] {
  const first = words[0];
  const last = words[words.length - 1];
  if (!activity || !first || !last) return words;
  const ws = first.start;
  const we = last.end;
  // Speech before the first word belongs to the previous segment's tail: look from the first word on.
  const vs = firstVoiced(activity, Math.max(segment.start, ws), segment.end);
  if (vs === null || we - ws < 0.05) return words;
  const targetStart = Math.max(ws, vs);
  let targetEnd: number;
  if (firstVoiced(activity, targetStart, we) !== null) {
    // The words overlap the speech: only pull an end that runs on into silence back to the speech.
    targetEnd = Math.max(targetStart, Math.min(we, lastVoiced(activity, targetStart, we) ?? we));
  } else {
    // All words lie before the speech: move them onto it, squeezed into its first stretch if needed.
    targetEnd = targetStart + Math.min(we - ws, voicedRunEnd(activity, targetStart, segment.end) - targetStart);
  }
  const span = targetEnd - targetStart;
  // A voiced span far shorter than the words is a blip, not the speech: trust Whisper then.
  if (span < 0.25 * (we - ws) || (targetStart === ws && targetEnd === we)) return words;
  const map = (t: number) => targetStart + ((t - ws) * span) / (we - ws);
  return words.map((w) => ({ ...w, start: map(w.start), end: map(w.end) }));
}

/**
 * Joins BPE tokens into words with absolute source times: a token with a leading space starts a word,
 * punctuation sticks to its word, times come from the tokens' offsets (ms from the start of the
 * extracted range) clamped to their segment, and probability is the least sure piece of the word.
 */
export function wordsFromWhisperJson(json: WhisperJson, range: TimeRange, activity: SpeechActivity | null = null): Word[] {
  const words: Word[] = [];
  const rangeLen = Math.max(0, range.end - range.start);
  for (const seg of json.transcription ?? []) {
    const segFrom = Math.max(0, seg.offsets.from);
    const segTo = Math.max(segFrom, seg.offsets.to);
    const segWords: Word[] = [];
    let draft: Draft | null = null;
    let prefix = '';
    const flush = () => {
      if (!draft) return;
      const text = (draft.prefix + utf8(draft.bytes)).trim();
      const clamp = (ms: number) => Math.min(rangeLen, Math.min(segTo, Math.max(segFrom, ms)) / 1000);
      if (text) {
        segWords.push({
          text,
          start: clamp(draft.from),
          end: clamp(Math.max(draft.from, draft.to)),
          probability: draft.p.length ? Math.min(...draft.p) : 0,
        });
      }
      draft = null;
    };
    for (const tok of seg.tokens ?? []) {
      if (isSpecial(tok.text)) continue;
      const decoded = utf8(tok.text);
      const bare = decoded.trim();
      if (!bare) continue;
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
      if (!current || startsWord || NO_SPACE_SCRIPT.test(bare) && !punct) {
        flush();
        draft = { bytes: trimAscii(tok.text), from: tok.offsets.from, to: tok.offsets.to, p: punct ? [] : [p], prefix };
        prefix = '';
      } else {
        current.bytes += punct ? trimAscii(tok.text) : tok.text;
        current.to = Math.max(current.to, tok.offsets.to);
        // Punctuation is near-certain or a guess about writing, not about what was said.
        if (!punct) current.p.push(p);
      }
    }
    flush();
    const segment = { start: segFrom / 1000, end: Math.min(rangeLen, segTo / 1000) };
    for (const w of alignSegmentToSpeech(dropAnnotations(segWords), segment, activity)) {
      words.push({ ...w, start: range.start + w.start, end: range.start + w.end });
    }
  }
  // Keep times monotonic: token offsets can overlap by a few ms at segment edges.
  let prevEnd = range.start;
  for (const w of words) {
    if (w.start < prevEnd) w.start = prevEnd;
    if (w.end < w.start) w.end = w.start;
    prevEnd = w.end;
  }
  return words;
}
