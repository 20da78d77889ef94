// Word-exact timing: Whisper says WHICH words were spoken, a phone-level forced aligner (CMU pocketsphinx
// with its US English acoustic model, Debian `pocketsphinx` + `pocketsphinx-en-us`) says WHEN. Each Whisper
// segment is aligned on its own, as a grammar that accepts exactly its words in order (silence and noise
// allowed between them), over the audio from a pause before it to a pause before the next one: short
// utterances keep the grammar search fast and a bad segment cannot shift its neighbours. Anything the
// aligner cannot do (a word missing from its dictionary, a failed or implausible result) keeps the
// energy-based timing of onset-align.ts for that segment or word. Measured in docs/benchmarks.md (issue 10):
// Festival word onsets median 10 ms / p90 30 ms against 95 / 242 ms without it.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defaultMediaRunner } from '../../media/local-runner.js';
import { ProcessError, findOnPath } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { setting } from '../../settings.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

export interface ForcedAligner {
  bin: string;
  /** Acoustic model folder (en-us). */
  hmm: string;
  /** Pronunciation dictionary (cmudict-en-us.dict). */
  dict: string;
}

/** The en-us model's filler for speech it has no word for. */
const SPEECH = '[SPEECH]';
/** Frames of pocketsphinx's front end: 100 a second. */
const FRAME_RATE = 100;
/**
 * An aligned start further than this from the energy-based one keeps the energy-based time: measured
 * (docs/benchmarks.md, issue 10), 0.6 s kept every Festival word's aligned time and caught the aligner
 * taking a soft utterance start for noise (680 ms late); 0.25-0.4 s also threw away good alignments.
 */
const MAX_SHIFT_SEC = 0.6;
/** A segment whose first word the aligner finds this much later, where it heard no word at the old time, was opened on non-speech. */
const MOVED_SEGMENT_SEC = 1.5;
/** A segment's audio longer than this is not aligned: the grammar search grows slow and fragile. */
const MAX_CHUNK_SEC = 30;

/**
 * pocketsphinx_batch and its en-us model (SHORTS_POCKETSPHINX, else on PATH), or null when either is
 * missing or the setting is `off`: transcription then keeps the energy-based word times.
 */
export function findForcedAligner(env: NodeJS.ProcessEnv = process.env): ForcedAligner | null {
  const configured = setting('SHORTS_POCKETSPHINX', env)?.trim();
  if (configured?.toLowerCase() === 'off') return null;
  const bin = configured ?? findOnPath('pocketsphinx_batch');
  if (!bin || !existsSync(bin)) return null;
  const model = path.resolve(path.dirname(bin), '..', 'share', 'pocketsphinx', 'model', 'en-us');
  const hmm = path.join(model, 'en-us');
  const dict = path.join(model, 'cmudict-en-us.dict');
  if (!existsSync(path.join(hmm, 'mdef')) || !existsSync(dict)) return null;
  return { bin, hmm, dict };
}

const dictionaries = new Map<string, Promise<Set<string>>>();

/** The dictionary's headwords (alternates such as "read(2)" folded), read once per file. */
function dictionaryWords(file: string): Promise<Set<string>> {
  let d = dictionaries.get(file);
  if (!d) {
    d = readFile(file, 'utf8').then((text) => {
      const words = new Set<string>();
      for (const line of text.split('\n')) {
        const head = line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '');
        if (head) words.add(head);
      }
      return words;
    });
    // A failed read is retried next time rather than cached.
    d.catch(() => dictionaries.delete(file));
    dictionaries.set(file, d);
  }
  return d;
}

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** An integer below a million as spoken words ("1234" -> one thousand two hundred thirty four). */
export function spellNumber(n: number): string[] {
  if (!Number.isInteger(n) || n < 0 || n >= 1_000_000) return [];
  if (n < 20) return [ONES[n]!];
  if (n < 100) return [TENS[Math.floor(n / 10)]!, ...(n % 10 ? [ONES[n % 10]!] : [])];
  if (n < 1000) return [ONES[Math.floor(n / 100)]!, 'hundred', ...(n % 100 ? spellNumber(n % 100) : [])];
  return [...spellNumber(Math.floor(n / 1000)), 'thousand', ...(n % 1000 ? spellNumber(n % 1000) : [])];
}

/**
 * What a written word sounds like as dictionary words: lowercase, punctuation stripped, hyphenated parts
 * apart, and the numbers Whisper writes as digits spelled out ("$50" -> fifty dollars, "9:30" -> nine
 * thirty, "20%" -> twenty percent, "1990s" is not handled). Null when some part cannot be spelled, or
 * the word is punctuation only (then the caller keeps the old times).
 */
export function spokenTokens(text: string): string[] | null {
  const out: string[] = [];
  const t = text.toLowerCase().replace(/[’‘]/g, "'");
  // Whisper glues a currency sign to the word before it ("him$50."): the amount is its own word.
  for (const raw of t.replace(/(?<=\p{L})(?=\$\d)/gu, ' ').split(/[-–—/\s]+/)) {
    let part = raw.replace(/^[^\p{L}\p{N}$]+|[^\p{L}\p{N}%]+$/gu, '').replace(/'s$/, "'s");
    if (!part) continue;
    const money = /^\$(\d{1,3}(?:,\d{3})*|\d+)$/.exec(part);
    if (money) {
      const n = Number(money[1]!.replace(/,/g, ''));
      const words = spellNumber(n);
      if (!words.length) return null;
      out.push(...words, n === 1 ? 'dollar' : 'dollars');
      continue;
    }
    const clock = /^(\d{1,2}):(\d{2})$/.exec(part);
    if (clock) {
      const m = Number(clock[2]);
      out.push(...spellNumber(Number(clock[1])), ...(m === 0 ? ["o'clock"] : m < 10 ? ['oh', ...spellNumber(m)] : spellNumber(m)));
      continue;
    }
    const percent = /^(\d+)%$/.exec(part);
    if (percent) {
      const words = spellNumber(Number(percent[1]));
      if (!words.length) return null;
      out.push(...words, 'percent');
      continue;
    }
    if (/^\d{1,3}(,\d{3})+$|^\d+$/.test(part)) {
      const words = spellNumber(Number(part.replace(/,/g, '')));
      if (!words.length) return null;
      out.push(...words);
      continue;
    }
    // Digits left in a word ("1990s", "mp3") have no spelling here: the segment keeps its old times.
    if (/\d/.test(part)) return null;
    part = part.replace(/[^\p{L}']/gu, '');
    if (!part) return null;
    out.push(part);
  }
  return out.length ? out : null;
}

/** One Whisper segment's words, as indexes into the transcript's word list. */
export interface SegmentSpan { first: number; count: number; segment: TimeRange }

export interface AlignStats { segments: number; aligned: number; outOfDictionary: number; failed: number }

interface Chunk { span: SegmentSpan; tokens: string[][]; before: string[]; after: string[]; fromFrame: number; toFrame: number }

/**
 * A grammar in Sphinx FSG format: the segment's words in order, after the last words of the segment before
 * and followed by the first words of the next one. The audio around a segment holds the edges of its
 * neighbours' words wherever the speech runs on; without them in the grammar the decoder stretches this
 * segment's first and last words over that sound or finds no path. (Optional context words, as null
 * transitions or alternative paths, were tried: pocketsphinx's search then took the short path and
 * squeezed the words, measured on Festival speech.) The decoder adds silence and noise fillers itself.
 */
function fsgOf(name: string, c: Chunk): string {
  const items = [...c.before, ...c.tokens.flat(), ...c.after];
  const lines = [`FSG_BEGIN ${name}`, `NUM_STATES ${items.length + 1}`, 'START_STATE 0', `FINAL_STATE ${items.length}`];
  items.forEach((w, i) => lines.push(`TRANSITION ${i} ${i + 1} 1.0 ${w}`));
  lines.push('FSG_END', '');
  return lines.join('\n');
}

/** A decoded word or filler (<sil>, [NOISE], [SPEECH]) with its frames. */
export interface DecodedWord { word: string; from: number; to: number; filler: boolean }

/**
 * Which decoded entry each expected token is, in order: every decoded word must be the next expected one,
 * fillers the decoder put in between are passed over, and an expected SPEECH placeholder (a word the
 * dictionary lacks) takes the next filler. Null when the decoder's words are not the expected ones.
 */
export function matchDecoded(decoded: DecodedWord[], expected: string[]): number[] | null {
  const at: number[] = [];
  let d = 0;
  for (const token of expected) {
    while (d < decoded.length && decoded[d]!.filler && decoded[d]!.word !== token) d++;
    if (d >= decoded.length || decoded[d]!.word !== token) return null;
    at.push(d++);
  }
  while (d < decoded.length && decoded[d]!.filler) d++;
  return d === decoded.length ? at : null;
}

/**
 * Parses -hypseg output: "uttid S s T t A a L l" then groups of "startFrame ascr lscr word" (frames from
 * the utterance's start); returns the words with their start and end frames, fillers flagged.
 */
export function parseHypseg(line: string): { id: string; words: DecodedWord[] } | null {
  const f = line.trim().split(/\s+/);
  if (f.length < 9 || f[1] !== 'S') return null;
  const groups: { word: string; from: number }[] = [];
  for (let i = 9; i + 3 < f.length; i += 4) groups.push({ from: Number(f[i]), word: f[i + 3]! });
  const end = Number(f[f.length - 1]);
  const words: DecodedWord[] = [];
  groups.forEach((g, i) => {
    const to = i + 1 < groups.length ? groups[i + 1]!.from : end;
    const word = g.word.replace(/\(\d+\)$/, '');
    // Null transitions are logged as "(NULL)" at frame -1.
    if (word === '(NULL)' || g.from < 0) return;
    words.push({ word, from: g.from, to, filler: /^<.*>$|^\[.*\]$|^\+\+.*\+\+$/.test(word) });
  });
  return { id: f[0]!, words };
}

/**
 * Re-times `words` (seconds on the source timeline; the samples start at `offset`) segment by segment
 * with the forced aligner. Words it cannot place keep the times they came with.
 */
export async function forceAlign(words: Word[], spans: SegmentSpan[], samples: Int16Array, sampleRate: number,
  opts: { aligner: ForcedAligner; workDir: string; offset?: number; signal?: AbortSignal; maxShift?: number; processes?: number; media?: MediaRunner }): Promise<{ words: Word[]; stats: AlignStats }> {
  const offset = opts.offset ?? 0;
  const maxShift = opts.maxShift ?? MAX_SHIFT_SEC;
  const stats: AlignStats = { segments: spans.length, aligned: 0, outOfDictionary: 0, failed: 0 };
  const dict = await dictionaryWords(opts.aligner.dict);
  const total = samples.length / sampleRate;
  const firstStart = (s: SegmentSpan) => Math.min(s.segment.start, words[s.first]!.start - offset);
  const lastEnd = (s: SegmentSpan) => Math.max(s.segment.end, words[s.first + s.count - 1]!.end - offset);
  const tokensOf = (s: SegmentSpan) => words.slice(s.first, s.first + s.count).map((w) => spokenTokens(w.text));
  const known = (t: string[] | null): t is string[] => Boolean(t && t.every((x) => dict.has(x)));
  const chunks: Chunk[] = [];
  spans.forEach((span, i) => {
    if (!span.count) return;
    // A word the dictionary lacks (a name, a misrecognition, "1990s") is the decoder's generic speech
    // filler in the grammar: the grammar has to hold every word said, or the neighbours of the missing one
    // stretch over its sound. Keeping the whole segment's old times instead left a segment of real speech
    // 4 s off (printer-onboarding in docs/benchmarks.md).
    const tokens = tokensOf(span).map((t) => (known(t) ? t : [SPEECH]));
    const unknown = tokens.filter((t) => t[0] === SPEECH).length;
    if (unknown) stats.outOfDictionary++;
    if (unknown > Math.max(1, 0.25 * tokens.length)) return;
    // Context: the last two words of the segment before and the first two of the next (those the
    // dictionary knows, next to the boundary), with the audio from a little before the first of them
    // to a little after the last. Times of the context words are the old ones: close, not exact.
    const prev = spans[i - 1], next = spans[i + 1];
    const before: string[] = [], after: string[] = [];
    let from = Math.max(0, firstStart(span) - 0.5);
    if (prev?.count) {
      const prevTokens = tokensOf(prev);
      let k = prev.count;
      while (k > Math.max(0, prev.count - 2) && known(prevTokens[k - 1]!)) k--;
      before.push(...prevTokens.slice(k).flat() as string[]);
      from = k < prev.count ? words[prev.first + k]!.start - offset - 0.15 : Math.max(words[prev.first + prev.count - 1]!.start - offset + 0.1, firstStart(span) - 0.3);
    }
    let to = Math.min(total, lastEnd(span) + 0.5);
    if (next?.count) {
      const nextTokens = tokensOf(next);
      let k = 0;
      while (k < Math.min(2, next.count) && known(nextTokens[k]!)) k++;
      after.push(...nextTokens.slice(0, k).flat() as string[]);
      const w = words[next.first + Math.max(0, k - 1)]!;
      to = Math.min(total, k ? Math.max(w.end, w.start + 0.3) - offset + 0.15 : Math.max(lastEnd(span) + 0.3, words[next.first]!.start - offset));
    }
    from = Math.max(0, from);
    if (!(to > from) || to - from > MAX_CHUNK_SEC) {
      stats.failed++;
      return;
    }
    chunks.push({ span, tokens: tokens as string[][], before, after, fromFrame: Math.floor(from * FRAME_RATE), toFrame: Math.min(Math.floor(total * FRAME_RATE), Math.ceil(to * FRAME_RATE)) });
  });
  if (!chunks.length) return { words, stats };

  const dir = opts.workDir;
  await writeFile(path.join(dir, 'align.raw'), new Uint8Array(samples.buffer, samples.byteOffset, samples.length * 2));
  // One process per core, each with a contiguous share of the segments: loading the acoustic model costs
  // more than aligning one segment, and pocketsphinx uses one core while Whisper has finished with both.
  const decode = async (list: Chunk[], tag: string): Promise<Map<string, NonNullable<ReturnType<typeof parseHypseg>>>> => {
    await Promise.all(list.map((c, i) => writeFile(path.join(dir, `${tag}${i}.fsg`), fsgOf(`${tag}${i}`, c))));
    const processes = Math.max(1, Math.min(opts.processes ?? os.availableParallelism(), Math.ceil(list.length / 4)));
    const per = Math.ceil(list.length / processes);
    const results = new Map<string, NonNullable<ReturnType<typeof parseHypseg>>>();
    await Promise.all(Array.from({ length: processes }, async (_, p) => {
      const ids = list.map((_c, i) => i).slice(p * per, (p + 1) * per);
      if (!ids.length) return;
      const base = path.join(dir, `${tag}-align${p}`);
      await writeFile(`${base}.ctl`, ids.map((i) => `align ${list[i]!.fromFrame} ${list[i]!.toFrame} ${tag}${i}\n`).join(''));
      await writeFile(`${base}.fsgctl`, ids.map((i) => `${tag}${i}.fsg\n`).join(''));
      try {
        await (opts.media ?? defaultMediaRunner()).run('pocketsphinx', [
          '-adcin', 'yes', '-adchdr', '0', '-samprate', String(sampleRate), '-cepdir', dir, '-cepext', '.raw',
          '-ctl', `${base}.ctl`, '-fsgctl', `${base}.fsgctl`, '-fsgdir', dir,
          '-hmm', opts.aligner.hmm, '-dict', opts.aligner.dict, '-hypseg', `${base}.seg`, '-bestpath', 'no',
          // Its default voice activity detection drops silent frames and shifts every time after them.
          '-remove_silence', 'no', '-logfn', `${base}.log`,
        ], { program: opts.aligner.bin, signal: opts.signal, cwd: dir });
      } catch (e) {
        // A broken or incompatible pocketsphinx must not fail the transcription: these segments keep their times.
        const code = (e as NodeJS.ErrnoException).code;
        if (e instanceof ProcessError || code === 'ENOENT' || code === 'EACCES') return;
        throw e;
      }
      for (const line of (await readFile(`${base}.seg`, 'utf8').catch(() => '')).split('\n')) {
        const r = parseHypseg(line);
        if (r) results.set(r.id, r);
      }
    }));
    return results;
  };
  const fits = (c: Chunk, r: ReturnType<typeof parseHypseg> | undefined) => Boolean(r && matchDecoded(r.words, [...c.before, ...c.tokens.flat(), ...c.after]));
  const first = await decode(chunks, 'u');
  const results = new Map(chunks.map((c, i) => [c, first.get(`u${i}`)] as const));
  // A neighbour's context words that are not in this chunk's audio (Whisper put them seconds before where
  // they are said, as before a laugh) leave no path: such chunks are decoded once more without context.
  const retry = chunks.filter((c) => !fits(c, results.get(c)) && (c.before.length || c.after.length)).map((c) => ({ ...c, before: [], after: [], original: c }));
  if (retry.length) {
    const second = await decode(retry, 'r');
    retry.forEach((c, i) => {
      const r = second.get(`r${i}`);
      if (fits(c, r)) {
        chunks[chunks.indexOf(c.original)] = c;
        results.set(c, r);
      }
    });
  }
  const out = words.map((w) => ({ ...w }));
  chunks.forEach((c) => {
    const r = results.get(c);
    // The decoder gives up on a chunk it cannot fit to the grammar (no result, or other words).
    const expected = [...c.before, ...c.tokens.flat(), ...c.after];
    const at = r ? matchDecoded(r.words, expected) : null;
    if (!r || !at) {
      stats.failed++;
      return;
    }
    let k = c.before.length;
    const timed = c.tokens.map((t) => {
      const first = r.words[at[k]!]!, last = r.words[at[k + t.length - 1]!]!;
      k += t.length;
      return { from: (c.fromFrame + first.from) / FRAME_RATE, to: (c.fromFrame + last.to) / FRAME_RATE, letters: t.join('').length };
    });
    // A word stretched far beyond anything spoken has swallowed sound that is not it (the end of the
    // word before the cut, a laugh): keep that word's old time. Too many of them: the chunk failed.
    const stretched = timed.map((t) => t.to - t.from > Math.max(1.2, 0.12 * t.letters + 0.5));
    if (stretched.filter(Boolean).length > Math.max(1, 0.25 * timed.length)) {
      stats.failed++;
      return;
    }
    stats.aligned++;
    // Where the aligner heard no word (silence, noise, a laugh), in source seconds.
    const heardNothing = r.words.filter((d) => d.filler && d.word !== SPEECH).map((d) => [(c.fromFrame + d.from) / FRAME_RATE + offset, (c.fromFrame + d.to) / FRAME_RATE + offset] as const);
    // Whisper opened the segment on a laugh or noise and crammed the words there: the aligner finds them
    // seconds later and heard no word where Whisper put the first one. Then its times hold for the segment.
    const first = out[c.span.first]!;
    const openedOnNoise = timed[0]!.from + offset - first.start > MOVED_SEGMENT_SEC
      && heardNothing.some(([a, b]) => first.start >= a - 0.05 && first.start <= b + 0.05);
    timed.forEach((t, j) => {
      const w = out[c.span.first + j]!;
      // Otherwise a word far from where the energy-based timing put it keeps the old time: one of the two
      // is badly wrong, and measured it was the aligner (a soft utterance start taken for noise, 680 ms late).
      if (stretched[j] || (!openedOnNoise && Math.abs(t.from + offset - w.start) > maxShift)) return;
      const oldEnd = w.end;
      w.start = t.from + offset;
      w.end = t.to + offset;
      // A word the dictionary lacks was a [SPEECH] filler, which the decoder keeps short and lets silence
      // fillers take the rest of the word: its start holds, its end runs to the next word (or, last in the
      // chunk, at least to where the energy-based timing ended it). Measured on LibriVox "ill-disposed",
      // heard as "old-sposed": the filler ended 0.7 s before the word did and a clip edge cut into it.
      if (c.tokens[j]![0] === SPEECH) {
        const next = timed[j + 1];
        w.end = next ? Math.max(w.end, next.from + offset) : Math.max(w.end, oldEnd);
      }
    });
  });
  // Keep the words in order where aligned and kept times meet.
  for (let i = 1; i < out.length; i++) {
    if (out[i]!.start < out[i - 1]!.start) out[i]!.start = out[i - 1]!.start;
    if (out[i - 1]!.end > out[i]!.start) out[i - 1]!.end = out[i]!.start;
    if (out[i]!.end < out[i]!.start) out[i]!.end = out[i]!.start;
  }
  return { words: out, stats };
}
