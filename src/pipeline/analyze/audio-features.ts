// What the audio says about a stretch of talk, for the highlight scorer: level, pitch and spectral
// shape in 25 ms steps, and the non-speech events (laughter, screams, applause, other bursts) found
// where the recogniser heard no words.
//
// One ffmpeg pass decodes only the range (-ss before -i) to 8 kHz mono 16-bit PCM, analysed as it streams
// in; everything else is computed here. 8 kHz is plenty: it holds voice pitch (75-600 Hz) and
// the 0-4 kHz band where laughter, screams and applause differ. Pitch is our own short YIN estimator:
// the maintained npm trackers (pitchfinder) are GPL-3.0, which this MIT project cannot ship, and
// ffmpeg has no pitch filter.
import { defaultMediaRunner } from '../../media/local-runner.js';
import { AbortedError } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { PipelineError } from '../../errors.js';
import type { AudioEvent, AudioEventKind, AudioTrack } from '../../domain/audio.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';
import { quantile } from '../shared/stats.js';

export const AUDIO_SAMPLE_RATE = 8000;
/** Hop between analysis frames. */
export const AUDIO_FRAME_SEC = 0.025;
const HOP = Math.round(AUDIO_FRAME_SEC * AUDIO_SAMPLE_RATE); // 200 samples
/** Pitch window: two periods of a 75 Hz voice. */
const PITCH_WINDOW = 400;
const MIN_F0 = 75, MAX_F0 = 600;
/** YIN's absolute threshold on the cumulative-mean-normalised difference: below it a frame is voiced. */
const YIN_THRESHOLD = 0.2;
const FFT_SIZE = 256;
/** Digital silence reads as -inf; clamp so averages stay finite. Quieter than any real room tone. */
export const SILENCE_DB = -90;

/** The ffmpeg argument list (pure, so it can be checked without running anything). */
export function audioArgs(mediaPath: string, range: TimeRange): string[] {
  const duration = Math.max(0, range.end - range.start);
  return [
    '-hide_banner', '-nostdin', '-v', 'error',
    '-ss', seconds(range.start), '-t', seconds(duration),
    '-i', mediaPath,
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    '-ac', '1', '-ar', String(AUDIO_SAMPLE_RATE), '-f', 's16le', '-acodec', 'pcm_s16le', '-',
  ];
}

/**
 * Level, pitch and spectral flatness of `range` in 25 ms frames (one ffmpeg decode). The PCM is analysed
 * as it streams in and dropped: a 5-hour source (the service's limit) would be 288 MB of samples.
 */
export async function analyseAudio(mediaPath: string, range: TimeRange, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<AudioTrack> {
  const analyser = new FrameAnalyser(range.start);
  try {
    await media.run('ffmpeg', audioArgs(mediaPath, range), { signal, streamStdout: (chunk) => analyser.push(chunk) });
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    throw new PipelineError('highlights', 'Could not read the audio of the video to find its best moments', { cause: err });
  }
  return analyser.finish();
}

/** Samples a frame's analysis reads from its start: the pitch window is the longest. */
const LOOKAHEAD = Math.max(PITCH_WINDOW, FFT_SIZE, HOP);

/** Frame analysis of 16-bit PCM fed in chunks of any size; only the last LOOKAHEAD samples are kept. */
class FrameAnalyser {
  private buf = new Float32Array(0);
  /** Sample index (from the range start) of buf[0]. */
  private base = 0;
  /** Sample index of the next frame to analyse. */
  private next = 0;
  private odd: number | null = null;
  private readonly levelDb: number[] = [];
  private readonly pitchHz: number[] = [];
  private readonly flatness: number[] = [];
  private readonly fft = new Fft(FFT_SIZE);

  constructor(private readonly start: number) {}

  push(chunk: Buffer): void {
    const bytes = this.odd === null ? chunk : Buffer.concat([Buffer.from([this.odd]), chunk]);
    const count = bytes.length >> 1;
    this.odd = bytes.length & 1 ? bytes[bytes.length - 1]! : null;
    const keep = this.buf.length - (this.next - this.base);
    const merged = new Float32Array(keep + count);
    merged.set(this.buf.subarray(this.buf.length - keep));
    for (let i = 0; i < count; i++) merged[keep + i] = bytes.readInt16LE(2 * i) / 32768;
    this.base = this.next;
    this.buf = merged;
    this.analyse(LOOKAHEAD);
  }

  finish(): AudioTrack {
    // The last frames see the end of the audio, exactly as if it had come in one piece.
    this.analyse(HOP);
    return { start: this.start, frameSec: AUDIO_FRAME_SEC, levelDb: this.levelDb, pitchHz: this.pitchHz, flatness: this.flatness };
  }

  /** Analyses every pending frame that has `need` samples from its start. */
  private analyse(need: number): void {
    let at = this.next - this.base;
    while (at + need <= this.buf.length) {
      this.frame(this.buf, at);
      at += HOP;
    }
    this.next = this.base + at;
  }

  private frame(x: Float32Array, at: number): void {
    const db = frameDb(x, at);
    this.levelDb.push(db);
    // Pitch and spectrum only where there is something to hear: silence is most of many ranges.
    const audible = db >= AUDIBLE_DB;
    this.pitchHz.push(audible ? yinPitch(x, at) : 0);
    this.flatness.push(audible ? this.fft.flatness(x, at) : 0);
  }
}

/** The frame measurements of mono samples at AUDIO_SAMPLE_RATE; frame i covers start + i*frameSec onwards. */
export function analyseSamples(samples: Float32Array, start: number): AudioTrack {
  const pcm = Buffer.alloc(samples.length * 2);
  samples.forEach((v, i) => pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32768))), 2 * i));
  const analyser = new FrameAnalyser(start);
  analyser.push(pcm);
  return analyser.finish();
}

/**
 * Seconds of voiced sound (a pitch YIN can follow, 75-600 Hz) in 16-bit mono PCM at any rate, counted up to
 * `enough` (then it stops: speech reaches it within its first words). Speech needs voicing; noise has none:
 * measured 0 voiced frames of 25 ms in brown, pink and white noise, against 26-72 % of the frames of recorded
 * speech, 26 % with white noise mixed over it at its own level (docs/benchmarks.md, issue 12).
 */
export function voicedSeconds(samples: Int16Array, sampleRate: number, enough = Infinity): number {
  // Decimated to the analysis rate by averaging: YIN reads only what is below 600 Hz.
  const step = Math.max(1, Math.round(sampleRate / AUDIO_SAMPLE_RATE));
  const x = new Float32Array(Math.floor(samples.length / step));
  for (let i = 0; i < x.length; i++) {
    let sum = 0;
    for (let k = 0; k < step; k++) sum += samples[i * step + k]!;
    x[i] = sum / step / 32768;
  }
  let voiced = 0;
  for (let at = 0; at + PITCH_WINDOW <= x.length && voiced * AUDIO_FRAME_SEC < enough; at += HOP) {
    if (frameDb(x, at) >= AUDIBLE_DB && yinPitch(x, at) > 0) voiced++;
  }
  return voiced * AUDIO_FRAME_SEC;
}

/** Frames quieter than this have nothing to hear: no pitch or spectrum is computed for them. */
const AUDIBLE_DB = -60;

/** RMS level (dBFS, clamped at SILENCE_DB) of the HOP samples from `at`. */
function frameDb(x: Float32Array, at: number): number {
  let sum = 0;
  for (let i = at; i < at + HOP; i++) sum += x[i]! * x[i]!;
  return Math.max(SILENCE_DB, 10 * Math.log10(sum / HOP + 1e-12));
}

/**
 * YIN (de Cheveigné & Kawahara 2002): the first lag whose cumulative-mean-normalised difference dips
 * under the threshold, refined by parabolic interpolation. 0 = unvoiced (noise, breath, silence).
 */
function yinPitch(x: Float32Array, at: number): number {
  const minLag = Math.floor(AUDIO_SAMPLE_RATE / MAX_F0), maxLag = Math.ceil(AUDIO_SAMPLE_RATE / MIN_F0);
  const span = PITCH_WINDOW - maxLag;
  if (at + PITCH_WINDOW > x.length) return 0;
  const d = YIN_BUFFER;
  let running = 0;
  const diff = (tau: number): number => {
    let s = 0;
    for (let i = at; i < at + span; i++) {
      const v = x[i]! - x[i + tau]!;
      s += v * v;
    }
    running += s;
    return running > 0 ? (s * tau) / running : 1;
  };
  d[0] = 1;
  // Lags are computed only until the first dip is found: a voiced frame stops at its period (a few
  // dozen lags) instead of running to 75 Hz, which more than halves the cost of a talk.
  for (let tau = 1; tau <= maxLag + 1; tau++) {
    d[tau] = diff(tau);
    if (tau - 1 >= minLag && d[tau - 1]! < YIN_THRESHOLD && d[tau]! >= d[tau - 1]!) {
      const best = tau - 1;
      const a = d[best - 1]!, b = d[best]!, c = d[best + 1]!;
      const denom = a - 2 * b + c;
      const shift = denom !== 0 ? Math.max(-1, Math.min(1, (a - c) / (2 * denom))) : 0;
      return AUDIO_SAMPLE_RATE / (best + shift);
    }
  }
  return 0;
}
const YIN_BUFFER = new Float64Array(Math.ceil(AUDIO_SAMPLE_RATE / MIN_F0) + 3);

/** Radix-2 FFT for the spectral flatness of one Hann-windowed frame. */
class Fft {
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly window: Float64Array;
  constructor(private readonly n: number) {
    this.re = new Float64Array(n);
    this.im = new Float64Array(n);
    this.window = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)));
  }

  /**
   * Geometric over arithmetic mean of the power spectrum above 150 Hz, 0..1: near 1 for noise
   * (applause, breath, hiss), near 0 for voiced sound with clear harmonics.
   */
  flatness(x: Float32Array, at: number): number {
    const { n, re, im } = this;
    for (let i = 0; i < n; i++) {
      re[i] = (x[at + i] ?? 0) * this.window[i]!;
      im[i] = 0;
    }
    transform(re, im);
    const lo = Math.ceil((150 * n) / AUDIO_SAMPLE_RATE);
    let logSum = 0, sum = 0, count = 0;
    for (let k = lo; k < n / 2; k++) {
      const p = re[k]! * re[k]! + im[k]! * im[k]! + 1e-12;
      logSum += Math.log(p);
      sum += p;
      count++;
    }
    return count > 0 && sum > 0 ? Math.exp(logSum / count) / (sum / count) : 0;
  }
}

function transform(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k), wi = Math.sin(ang * k);
        const ar = re[i + k + len / 2]!, ai = im[i + k + len / 2]!;
        const tr = ar * wr - ai * wi, ti = ar * wi + ai * wr;
        re[i + k + len / 2] = re[i + k]! - tr;
        im[i + k + len / 2] = im[i + k]! - ti;
        re[i + k] = re[i + k]! + tr;
        im[i + k] = im[i + k]! + ti;
      }
    }
  }
}

// ---------------------------------------------------------------- events

/** Whisper's word edges are loose by ~0.1 s; sound this close to a word is taken for that word. */
const WORD_MARGIN_SEC = 0.12;
/** Gaps shorter than this inside a burst (a breath inside laughter) do not split it. */
const MERGE_GAP_SEC = 0.25;
const MIN_EVENT_SEC = 0.5;
/** Mean spectral flatness above which a burst is noise-like (measured: applause 0.26, laughter 0.01-0.08, speech 0.00-0.03). */
const APPLAUSE_FLATNESS = 0.18;
/**
 * Laughter is pitched above the talk: measured 1.6-2.3x the speaker's median on recorded laughs, while
 * an emphasised word the recogniser stretched reached 1.25x.
 */
const LAUGH_PITCH_RATIO = 1.4;

/** Typical voice of the range: the levels and pitch of frames inside recognised words. */
export interface VoiceProfile { speechDb: number; noiseDb: number; pitchHz: number }

export function voiceProfile(track: AudioTrack, words: readonly Word[]): VoiceProfile {
  const inWord = wordMask(track, words, 0);
  const speech: number[] = [], pitch: number[] = [];
  track.levelDb.forEach((db, f) => {
    if (!inWord[f]) return;
    speech.push(db);
    if (track.pitchHz[f]! > 0) pitch.push(track.pitchHz[f]!);
  });
  const all = [...track.levelDb].sort((a, b) => a - b);
  return {
    speechDb: speech.length > 0 ? quantile(speech, 0.5) : quantile(all, 0.7),
    noiseDb: all.length > 0 ? quantile(all, 0.1) : SILENCE_DB,
    pitchHz: pitch.length > 0 ? quantile(pitch, 0.5) : 0,
  };
}

/**
 * Sound where no words were recognised, loud enough to be heard over the room (within 20 dB of the
 * speech level and 12 dB above the noise floor), at least 0.5 s long (a real reaction lasts longer than a stretched word), classified by its shape:
 * laughter pulses (3-9 energy peaks a second, partly voiced), a scream (sustained, voiced, pitched
 * well above the speaker), applause (noise-like spectrum, unvoiced, a second or more) or a burst.
 */
export function findAudioEvents(track: AudioTrack, recognised: readonly Word[]): AudioEvent[] {
  const words = recognised.filter(plausibleWord);
  const profile = voiceProfile(track, words);
  const threshold = Math.max(profile.speechDb - 20, profile.noiseDb + 12, -55);
  // Sound under the whole talk (a music bed, a noisy room: the quiet frames within 20 dB of the voice)
  // swells between lines; there an unclassified burst is that background, not something happening.
  const bed = profile.speechDb - profile.noiseDb < 20;
  const between: AudioEvent[] = [];
  for (const [a, b] of loudRuns(track, threshold, wordMask(track, words, WORD_MARGIN_SEC))) {
    const event = describeBurst(track, a, b, threshold, profile);
    // Over a bed, only sound pitched like a laugh counts: breathy pulses there are the music's rhythm.
    if (event && !(bed && (event.kind === 'burst' || (event.kind === 'laughter' && event.voicedShare < 0.15)))) between.push(event);
  }
  // Recognisers also lay words over a burst with no sign in their times: measured, the words after a
  // 4 s laugh placed 4 s early, right over it. So the audio is read once more ignoring the words, and a
  // sound that is unmistakably laughter, a scream or applause there counts too. Laughter must then sit
  // well above the voice (measured: real laughs 1.6-2.3x the speaker's pitch, emphatic speech under 1.4x).
  // Not over a music bed: there a melody pulses and rises above the voice just like laughter (measured:
  // two "laughs" inside a narrated film's music).
  const anywhere: AudioEvent[] = [];
  for (const [a, b] of bed ? [] : loudRuns(track, threshold, null)) {
    const event = describeBurst(track, a, b, threshold, profile);
    if (!event || event.kind === 'burst') continue;
    if (event.kind === 'laughter' && event.pitchHz > 0 && profile.pitchHz > 0 && event.pitchHz < 1.5 * profile.pitchHz) continue;
    anywhere.push(event);
  }
  const overlaps = (x: AudioEvent, y: AudioEvent) => x.start < y.end && y.start < x.end;
  const events = [...between.filter((e) => !anywhere.some((o) => overlaps(e, o) && e.kind === 'burst')), ...anywhere.filter((o) => !between.some((e) => overlaps(e, o) && e.kind !== 'burst'))];
  return events.sort((x, y) => x.start - y.start);
}

/** Runs of frames at or above `threshold` outside `mask` (gaps under MERGE_GAP_SEC bridged), at least MIN_EVENT_SEC long. */
function loudRuns(track: AudioTrack, threshold: number, mask: boolean[] | null): [number, number][] {
  const fs = track.frameSec;
  const n = track.levelDb.length;
  const runs: [number, number][] = [];
  let open = -1, lastLoud = -1;
  for (let f = 0; f <= n; f++) {
    const masked = f < n && mask !== null && mask[f]!;
    const loud = f < n && !masked && track.levelDb[f]! >= threshold;
    if (loud) {
      if (open < 0) open = f;
      lastLoud = f;
    } else if (open >= 0 && (f === n || masked || (f - lastLoud) * fs > MERGE_GAP_SEC)) {
      if ((lastLoud - open + 1) * fs >= MIN_EVENT_SEC) runs.push([open, lastLoud]);
      open = -1;
    }
  }
  return runs;
}

function describeBurst(track: AudioTrack, a: number, b: number, threshold: number, profile: VoiceProfile): AudioEvent | null {
  const fs = track.frameSec;
  const duration = (b - a + 1) * fs;
  let loud = 0, voiced = 0, flat = 0, peakDb = SILENCE_DB;
  const pitches: number[] = [];
  for (let f = a; f <= b; f++) {
    const db = track.levelDb[f]!;
    if (db < threshold) continue;
    loud++;
    peakDb = Math.max(peakDb, db);
    flat += track.flatness[f]!;
    if (track.pitchHz[f]! > 0) {
      voiced++;
      pitches.push(track.pitchHz[f]!);
    }
  }
  const voicedShare = loud > 0 ? voiced / loud : 0;
  const meanFlatness = loud > 0 ? flat / loud : 0;
  const pulsesPerSec = envelopePeaks(track.levelDb, a, b) / duration;
  const pitch = pitches.length > 0 ? quantile(pitches, 0.5) : 0;
  // Relative to the speaker when we know their voice; a voice we have not heard needs a high absolute pitch.
  const pitchRatio = profile.pitchHz > 0 ? pitch / profile.pitchHz : pitch / 240;
  const noiseLike = meanFlatness > APPLAUSE_FLATNESS;
  let kind: AudioEventKind = 'burst';
  // "Ha-ha-ha": 2.5-9 pulses a second, pitched well above the talk (or breathy and unvoiced), not broadband.
  // Unrecognised speech pulses at the same rate but at the speaker's own pitch, so it stays a burst.
  if (pulsesPerSec >= 2.5 && pulsesPerSec <= 9 && !noiseLike && (voicedShare < 0.15 || (voicedShare <= 0.95 && pitchRatio >= LAUGH_PITCH_RATIO))) kind = 'laughter';
  else if (voicedShare > 0.5 && pitchRatio >= 1.4 && pulsesPerSec < 2.5) kind = 'scream';
  else if (voicedShare < 0.2 && noiseLike && duration >= 1) kind = 'applause';
  // Voiced sound at the speaker's own pitch is speech the recogniser missed or misplaced (its words
  // drift after a pause, its last word of a sentence is cut short): not an event at all.
  else if (voicedShare >= 0.25 && pitchRatio > 0.7 && pitchRatio < LAUGH_PITCH_RATIO) return null;
  return {
    kind,
    start: track.start + a * fs,
    end: track.start + (b + 1) * fs,
    peakDb: round(peakDb, 1),
    voicedShare: round(voicedShare, 2),
    pulsesPerSec: round(pulsesPerSec, 1),
    pitchHz: Math.round(pitch),
  };
}

/** Energy pulses: local maxima of a 75 ms smoothed level that stand 5 dB over the dips either side. */
function envelopePeaks(db: readonly number[], a: number, b: number): number {
  const smooth: number[] = [];
  for (let f = a; f <= b; f++) smooth.push(((db[f - 1] ?? db[f]!) + db[f]! + (db[f + 1] ?? db[f]!)) / 3);
  let peaks = 0, lowSince = smooth[0] ?? 0, candidate: number | null = null;
  for (let i = 1; i < smooth.length - 1; i++) {
    const v = smooth[i]!;
    if (candidate === null) {
      lowSince = Math.min(lowSince, v);
      if (v >= smooth[i - 1]! && v > smooth[i + 1]! && v - lowSince >= 5) candidate = v;
    } else if (candidate - v >= 5) {
      peaks++;
      candidate = null;
      lowSince = v;
    } else if (v > candidate) {
      candidate = v;
    }
  }
  if (candidate !== null) peaks++;
  return Math.max(1, peaks);
}

/**
 * Whisper sometimes lays the words that follow a burst of laughter or music over the burst itself,
 * stretching them ("#4." over 1.2 s, "lunch" over 1 s). A word far longer than its letters could take
 * (0.25 s + 0.09 s a letter: "questions" may take 1.06 s, "lunch" 0.7 s) does not prove there was speech.
 */
export function plausibleWord(w: Word): boolean {
  // Digits and "#" are said as words ("#4" is "number four"): count them at a spoken word's length.
  const letters = w.text.replace(/[^\p{L}]/gu, '').length + 4 * (w.text.match(/\p{N}+/gu)?.length ?? 0) + 6 * (w.text.match(/#/g)?.length ?? 0);
  return w.end - w.start <= 0.25 + 0.09 * Math.max(2, letters);
}

/** True for frames that overlap a recognised word (widened by `margin` seconds each side). */
export function wordMask(track: AudioTrack, words: readonly Word[], margin: number): boolean[] {
  const mask = new Array<boolean>(track.levelDb.length).fill(false);
  for (const w of words) {
    const a = Math.max(0, Math.floor((w.start - margin - track.start) / track.frameSec));
    const b = Math.min(mask.length - 1, Math.ceil((w.end + margin - track.start) / track.frameSec) - 1);
    for (let f = a; f <= b; f++) mask[f] = true;
  }
  return mask;
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

function seconds(t: number): string {
  return (Math.round(t * 1000) / 1000).toFixed(3);
}
