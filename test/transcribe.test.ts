// Stage 2 against the real whisper.cpp binary, the model from SHORTS_WHISPER_MODEL and real ffmpeg.
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DECODER_VERSION, createTranscriber, extractAudioArgs, wavSamples } from '../src/pipeline/transcribe/transcribe.js';
import { transcriptCacheFile } from '../src/pipeline/transcribe/transcript-cache.js';
import type { Transcript, Word } from '../src/domain/transcript.js';
import { MIN_WORD_SEC, energyEnvelope, energyRises, giveEveryWordTime, refineOnsets, spreadOverSpeech } from '../src/pipeline/transcribe/onset-align.js';
import { findForcedAligner, matchDecoded, parseHypseg, spokenTokens } from '../src/pipeline/transcribe/forced-align.js';
import { DEFAULT_DECODING, dtwPresetFor, whisperArgs, wordsFromWhisperJson, type WhisperJson } from '../src/pipeline/transcribe/whisper-cli.js';
import { modelDisplayName, parseModelSpec, resolveWhisperModel } from '../src/pipeline/transcribe/whisper-model.js';
import { PipelineError } from '../src/errors.js';
import { FIXTURES, JFK_TEXT, JFK_WAV, concatSpeech, speech, video } from './helpers/media.js';
import { wordErrorRate } from './helpers/wer.js';

const MODEL = process.env.SHORTS_WHISPER_MODEL!;
const tmpDirs: string[] = [];
function tmpDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'shorts-transcribe-test-'));
  tmpDirs.push(d);
  return d;
}
afterAll(() => tmpDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const savedEnv = { ...process.env };
afterEach(() => {
  for (const k of ['SHORTS_WHISPER_CLI', 'SHORTS_WHISPER_MODEL_BASE_URL']) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

function expectWellFormed(t: Transcript): void {
  let prev = t.range.start;
  for (const w of t.words) {
    expect(w.start).toBeGreaterThanOrEqual(prev);
    expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(w.end).toBeLessThanOrEqual(t.range.end + 1e-9);
    expect(w.probability).toBeGreaterThanOrEqual(0);
    expect(w.probability).toBeLessThanOrEqual(1);
    expect(w.text).toBe(w.text.trim());
    prev = w.start;
  }
  expect(t.sentences.flatMap((s) => s.words)).toEqual(t.words);
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

/** Three known sentences, 3 s of silence before them and 2 s after, as an MP4 with AAC audio. */
const SENTENCES = [
  'The weather was cold and the streets were empty.',
  'We walked to the old station before sunrise.',
  'Nobody expected the train to arrive so early.',
];
function embeddedSpeech(): { file: string; duration: number } {
  const talk = concatSpeech(SENTENCES.map((s) => speech(s)), 0.8);
  const padded = path.join(FIXTURES, `${path.basename(talk, '.wav')}-embedded.wav`);
  if (!existsSync(padded)) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', talk, '-af', 'adelay=3000:all=1,apad=pad_dur=2', '-ar', '16000', '-ac', '1', `${padded}.tmp.wav`]);
    execFileSync('mv', [`${padded}.tmp.wav`, padded]);
  }
  const duration = statSync(padded).size / 32000;
  return { file: video({ duration: Math.floor(duration), width: 160, height: 120, fps: 10, audio: padded }), duration: Math.floor(duration) };
}

/** Where speech really starts, per ffmpeg's silencedetect (end of the leading silence). */
function speechOnset(file: string): number {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-af', 'silencedetect=noise=-40dB:d=0.5', '-f', 'null', '-'], { encoding: 'utf8' });
  const m = /silence_start: 0\b[\s\S]*?silence_end: ([0-9.]+)/.exec(r.stderr);
  if (!m?.[1]) throw new Error('no leading silence found');
  return Number(m[1]);
}

/**
 * JFK (0-11 s, English, the configured model) transcribed once per file, with a cache key: the accuracy
 * test judges the transcript, the cache test and the advisory-model test re-use it (one whisper.cpp run
 * instead of three). Made on first use, so each test still runs on its own.
 */
const JFK_KEY = 'jfk-content-key';
let jfkMemo: Promise<{ dataDir: string; transcript: Transcript; progress: number[] }> | null = null;
function jfk(): Promise<{ dataDir: string; transcript: Transcript; progress: number[] }> {
  jfkMemo ??= (async () => {
    const dataDir = tmpDir();
    const progress: number[] = [];
    const transcript = await createTranscriber({ dataDir }).transcribe({
      mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'en', cacheKey: JFK_KEY, onProgress: (f) => progress.push(f),
    });
    return { dataDir, transcript, progress };
  })();
  return jfkMemo;
}

describe('createTranscriber (whisper.cpp)', () => {
  it('transcribes JFK with a word error rate of at most 0.15, words in order and inside the audio', async () => {
    const { transcript: t, progress } = await jfk();
    const text = t.words.map((w) => w.text).join(' ');
    expect(wordErrorRate(JFK_TEXT, text)).toBeLessThanOrEqual(0.15);
    expect(t.model).toBe(modelDisplayName(parseModelSpec(MODEL)));
    expect(t.language).toBe('en');
    expect(t.range).toEqual({ start: 0, end: 11 });
    expectWellFormed(t);
    expect(t.sentences.length).toBeGreaterThanOrEqual(1);
    expect(t.sentences.map((s) => s.index)).toEqual(t.sentences.map((_, i) => i));
    // "fellow" is said at about 1 s; "country" (the last word) ends near 11 s.
    const fellow = t.words.find((w) => /fellow/i.test(w.text));
    expect(fellow?.start).toBeGreaterThan(0.5);
    expect(fellow?.start).toBeLessThan(1.6);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it('puts words of a range that starts mid-file on the source timeline and ends sentences where the speaker does', async () => {
    const { file, duration } = embeddedSpeech();
    const onset = speechOnset(file);
    expect(onset).toBeGreaterThan(2.5);
    const range = { start: 1.5, end: duration };
    const t = await createTranscriber({ dataDir: tmpDir() }).transcribe({ mediaPath: file, range, language: 'en' });
    expectWellFormed(t);
    expect(t.sentences).toHaveLength(SENTENCES.length);
    const wer = wordErrorRate(SENTENCES.join(' '), t.sentences.map((s) => s.sentence).join(' '));
    expect(wer).toBeLessThanOrEqual(0.15);
    expect(Math.abs(t.words[0]!.start - onset)).toBeLessThanOrEqual(0.3);
    expect(t.sentences[0]!.start).toBe(t.words[0]!.start);
  });

  it('answers a second identical request from the cache without decoding or recognising again', async () => {
    // The first request: JFK's transcript, made with a cache key into a fresh data dir.
    const { dataDir, transcript: first } = await jfk();
    const req = { mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'en', cacheKey: JFK_KEY };
    const cacheDir = path.join(dataDir, 'cache', 'transcripts');
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    // Neither ffmpeg input nor whisper-cli exist any more: only the cache can answer.
    process.env.SHORTS_WHISPER_CLI = '/nonexistent/whisper-cli';
    const progress: number[] = [];
    const second = await createTranscriber({ dataDir }).transcribe({ ...req, mediaPath: '/nonexistent/media.wav', onProgress: (f) => progress.push(f) });
    expect(second).toEqual(first);
    expect(progress.at(-1)).toBe(1);
    // A different range is a different entry.
    await expect(createTranscriber({ dataDir }).transcribe({ ...req, range: { start: 2, end: 11 } })).rejects.toThrow(/SHORTS_WHISPER_CLI/);
  });

  it('keys the cache file by content, range, language, model size and decoder, so an old decoder\'s transcripts are not reused', () => {
    const key = { contentKey: 'k', range: { start: 0, end: 10 }, language: 'en', modelName: 'tiny.en', modelSizeBytes: 100, decoder: DECODER_VERSION };
    const file = transcriptCacheFile('/data', key);
    expect(file).toMatch(/^\/data\/cache\/transcripts\/[0-9a-f]{64}\.json$/);
    expect(transcriptCacheFile('/data', { ...key })).toBe(file);
    for (const other of [{ ...key, contentKey: 'j' }, { ...key, range: { start: 0, end: 11 } }, { ...key, language: 'de' }, { ...key, modelSizeBytes: 101 },
      { ...key, decoder: 'bs1-bo1-tf' }]) {
      expect(transcriptCacheFile('/data', other)).not.toBe(file);
    }
  });

  it('rejects a model path that does not exist with a clear message', async () => {
    const e = await rejection(createTranscriber({ dataDir: tmpDir(), model: '/nonexistent/ggml-tiny.en.bin' })
      .transcribe({ mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'en' }));
    expect(e).toBeInstanceOf(PipelineError);
    expect((e as PipelineError).stage).toBe('transcribing_audio');
    expect(e.message).toMatch(/\/nonexistent\/ggml-tiny\.en\.bin does not exist/);
  });

  it('rejects an unknown model name', () => {
    expect(() => createTranscriber({ dataDir: tmpDir(), model: 'huge-v9' })).toThrow(/unknown Whisper model "huge-v9"/);
    expect(parseModelSpec('base.en-q5_1')).toEqual({ kind: 'name', name: 'base.en-q5_1' });
    expect(parseModelSpec('models/x.bin')).toMatchObject({ kind: 'file' });
  });

  it('fails with a readable error when the video has no audio stream', async () => {
    const silentVideo = video({ duration: 2, width: 160, height: 120, fps: 10 });
    const e = await rejection(createTranscriber({ dataDir: tmpDir() }).transcribe({ mediaPath: silentVideo, range: { start: 0, end: 2 }, language: 'en' }));
    expect(e).toBeInstanceOf(PipelineError);
    expect(e.message).toBe('the video has no audio track, so there is no speech to transcribe');
  });

  it('returns no words for a range past the end of the audio', async () => {
    const t = await createTranscriber({ dataDir: tmpDir() }).transcribe({ mediaPath: JFK_WAV, range: { start: 30, end: 40 }, language: 'en' });
    expect(t.words).toEqual([]);
    expect(t.sentences).toEqual([]);
  });

  it('kills whisper-cli and removes its temp files when the signal aborts', async () => {
    // 40 s of audio: long enough that recognition is still running when we abort.
    const { file } = embeddedSpeech();
    const long = path.join(FIXTURES, 'transcribe-abort-40s.wav');
    if (!existsSync(long)) execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', file, '-af', 'apad=whole_dur=40', '-ar', '16000', '-ac', '1', long]);
    // A private temp root: other test files run at the same time and transcribe too, and their
    // shorts-transcribe-* folders in the shared temp dir would look like ours.
    const privateTmp = tmpDir();
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    onTestFinished(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    });
    expect(os.tmpdir()).toBe(privateTmp);
    const ac = new AbortController();
    let childSeen = false;
    const run = createTranscriber({ dataDir: tmpDir() }).transcribe({
      mediaPath: long, range: { start: 0, end: 40 }, language: 'en', signal: ac.signal,
      onProgress: (f) => {
        if (f !== 0.05) return; // audio extracted: whisper-cli is starting now
        setTimeout(() => {
          childSeen = execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' }).includes('whisper-cli');
          ac.abort();
        }, 200);
      },
    });
    const e = await rejection(run);
    expect(e.name).toBe('AbortError');
    expect(childSeen).toBe(true);
    let children = '';
    try {
      children = execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    } catch { /* ps exits 1 when there are none */ }
    expect(children).not.toContain('whisper-cli');
    expect(readdirSync(privateTmp).filter((f) => f.startsWith('shorts-transcribe-') && !f.includes('test'))).toEqual([]);
  });
});

describe('model download', () => {
  let server: Server;
  let base = '';
  const served: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      served.push(req.url ?? '');
      const name = path.basename(MODEL);
      if (req.url === `/models/${name}`) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(statSync(MODEL).size) });
        createReadStream(MODEL).pipe(res);
      } else if (req.url === '/html/ggml-base.en.bin') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>login required</html>');
      } else {
        res.writeHead(404).end('not found');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('downloads a named model into <dataDir>/models on first use, reporting progress, then transcribes with it', async () => {
    const name = modelDisplayName(parseModelSpec(MODEL));
    process.env.SHORTS_WHISPER_MODEL_BASE_URL = `${base}/models/`;
    const dataDir = tmpDir();
    const seen: [number, number][] = [];
    const transcriber = createTranscriber({ dataDir, model: name, onModelDownload: (r, t) => seen.push([r, t]) });
    expect(transcriber.modelName).toBe(name);
    const t = await transcriber.transcribe({ mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'en' });
    const stored = path.join(dataDir, 'models', `ggml-${name}.bin`);
    expect(statSync(stored).size).toBe(statSync(MODEL).size);
    expect(readdirSync(path.dirname(stored))).toEqual([`ggml-${name}.bin`]);
    expect(seen.at(-1)).toEqual([statSync(MODEL).size, statSync(MODEL).size]);
    expect(wordErrorRate(JFK_TEXT, t.words.map((w) => w.text).join(' '))).toBeLessThanOrEqual(0.15);
    // Second use: no request.
    const requests = served.length;
    await resolveWhisperModel({ kind: 'name', name }, { dataDir });
    expect(served.length).toBe(requests);
  });

  it('tells the user how to get the model by hand when the download fails', async () => {
    process.env.SHORTS_WHISPER_MODEL_BASE_URL = `${base}/missing`;
    const dataDir = tmpDir();
    const e = await rejection(resolveWhisperModel({ kind: 'name', name: 'base.en' }, { dataDir }));
    expect(e).toBeInstanceOf(PipelineError);
    expect(e.message).toMatch(/^could not download the Whisper model "base\.en" \(.*404.*\)\. Download it yourself and set SHORTS_WHISPER_MODEL=\/path\/to\/ggml-base\.en\.bin$/);
    expect(existsSync(path.join(dataDir, 'models')) ? readdirSync(path.join(dataDir, 'models')) : []).toEqual([]);
  });

  it('fails a Spanish request whose multilingual model cannot be downloaded, naming the setting to use instead', async () => {
    // JFK's data dir: its English transcript is cached there, so the request below needs no whisper.cpp run
    // of its own (what is checked is that the failed advisory model does not stop it).
    const { dataDir } = await jfk();
    process.env.SHORTS_WHISPER_MODEL_BASE_URL = `${base}/missing`;
    const transcriber = createTranscriber({ dataDir, model: MODEL, multilingualModel: 'base-q5_1' });
    const e = await rejection(transcriber.transcribe({ mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'es' }));
    expect(e).toBeInstanceOf(PipelineError);
    expect(e.message).toMatch(/could not download the Whisper model "base-q5_1" \(.*404.*\)\. Download it yourself and set SHORTS_WHISPER_MULTILINGUAL_MODEL=\/path\/to\/ggml-base-q5_1\.bin$/);
    // The same model only for the advisory language check: skipped silently, the English request goes on.
    const t = await transcriber.transcribe({ mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'en', checkLanguage: true, cacheKey: JFK_KEY });
    expect(t.model).toBe(modelDisplayName(parseModelSpec(MODEL)));
    expect(wordErrorRate(JFK_TEXT, t.words.map((w) => w.text).join(' '))).toBeLessThanOrEqual(0.15);
  });

  it('refuses a download that is not a ggml model file', async () => {
    process.env.SHORTS_WHISPER_MODEL_BASE_URL = `${base}/html`;
    const dataDir = tmpDir();
    const e = await rejection(resolveWhisperModel({ kind: 'name', name: 'base.en' }, { dataDir }));
    expect(e.message).toMatch(/could not download the Whisper model "base\.en" \(the server did not send a ggml model file\)/);
    expect(readdirSync(path.join(dataDir, 'models'))).toEqual([]);
  });
});

describe('whisper-cli output to words', () => {
  // whisper-cli's JSON is read as latin1 (raw token bytes), so tokens are given here as their UTF-8 bytes.
  const tok = (text: string, from: number, to: number, p = 0.9) => ({ text: Buffer.from(text, 'utf8').toString('latin1'), offsets: { from, to }, p });
  const json = (tokens: ReturnType<typeof tok>[], from = 0, to = 10_000): WhisperJson => ({ transcription: [{ offsets: { from, to }, text: '', tokens }] });
  const texts = (ws: Word[]) => ws.map((w) => w.text);

  it('joins BPE pieces, attaches punctuation, skips special tokens and offsets by the range start', () => {
    const ws = wordsFromWhisperJson(json([
      tok('[_BEG_]', 0, 0), tok(' Hel', 100, 200, 0.5), tok('lo', 200, 400, 0.8), tok(',', 400, 400, 0.1),
      tok(' world', 500, 900), tok('.', 900, 900), tok('[_TT_50]', 1000, 1000),
    ]), { start: 60, end: 70 });
    expect(ws).toEqual([
      { text: 'Hello,', start: 60.1, end: 60.4, probability: 0.5 },
      { text: 'world.', start: 60.5, end: 60.9, probability: 0.9 },
    ]);
  });

  it('drops non-speech annotations like [BLANK_AUDIO], (music) and ♪', () => {
    const ws = wordsFromWhisperJson(json([
      tok(' [', 0, 0), tok('BL', 0, 0), tok('ANK', 0, 0), tok('_AUDIO', 0, 0), tok(']', 0, 100),
      tok(' (', 100, 100), tok('upbeat', 100, 200), tok(' music', 200, 300), tok(')', 300, 300),
      tok(' ♪', 300, 400), tok(' Yes', 400, 600), tok(' [', 600, 600), tok('Music', 600, 700), tok(']', 700, 800),
    ]), { start: 0, end: 10 });
    expect(texts(ws)).toEqual(['Yes']);
  });

  it('puts an opening quote on the next word, drops speaker dashes and keeps multi-byte characters whole', () => {
    // "café" split inside the é (0xC3 0xA9), as byte-level BPE does; latin1 holds the raw bytes.
    const ws = wordsFromWhisperJson(json([
      tok(' -', 0, 0), tok(' He', 0, 100), tok(' said', 100, 200), tok(' "', 200, 200), tok('caf', 200, 300),
      { text: '\u00c3', offsets: { from: 300, to: 350 }, p: 0.9 }, { text: '\u00a9', offsets: { from: 350, to: 400 }, p: 0.9 }, tok('."', 400, 400),
    ]), { start: 0, end: 10 });
    expect(texts(ws)).toEqual(['He', 'said', '"café."']);
  });

  it('clamps times to the segment and the range and keeps them monotonic', () => {
    const ws = wordsFromWhisperJson({
      transcription: [
        { offsets: { from: 0, to: 1000 }, text: '', tokens: [tok(' a', 0, 1500), tok(' b', 900, 1000)] },
        { offsets: { from: 1000, to: 3000 }, text: '', tokens: [tok(' c', 800, 2000), tok(' d', 2500, 9000)] },
      ],
    }, { start: 10, end: 12 });
    // An overlap shortens the word before ("a" ends where "b" starts) instead of delaying a start.
    expect(ws.map((w) => [w.start, w.end])).toEqual([[10, 10.9], [10.9, 11], [11, 12], [12, 12]]);
  });
});

describe('word onsets from the audio energy', () => {
  /** 16 kHz PCM: quiet noise, with a 300 Hz tone (a stand-in for speech) between the given seconds. */
  function pcm(seconds: number, loud: [number, number][]): Int16Array {
    const out = new Int16Array(seconds * 16_000);
    for (let i = 0; i < out.length; i++) {
      const t = i / 16_000;
      const on = loud.some(([a, b]) => t >= a && t < b);
      out[i] = Math.round((on ? 8000 * Math.sin(2 * Math.PI * 300 * t) : 0) + (Math.sin(i * 12.9898) * 43758.5453 % 1) * 30);
    }
    return out;
  }
  const w = (text: string, start: number, end: number): Word => ({ text, start, end, probability: 1 });
  const starts = (ws: Word[]) => ws.map((x) => Math.round(x.start * 100) / 100);

  it('finds where sound starts after a pause, within 20 ms', () => {
    const rises = energyRises(energyEnvelope(pcm(6, [[1, 2], [2.5, 4]]), 16_000));
    expect(rises).toHaveLength(2);
    expect(Math.abs(rises[0]! - 1)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(rises[1]! - 2.5)).toBeLessThanOrEqual(0.02);
  });

  it('moves a late or early start to the nearby rise, and a word put in silence forward onto the speech', () => {
    const env = energyEnvelope(pcm(8, [[1, 2], [2.5, 4], [6, 7]]), 16_000);
    const out = refineOnsets([w('a', 1.1, 1.5), w('b', 2.4, 3), w('c', 3.2, 3.6), w('d', 5.2, 6.5)], env, 0);
    // a: 100 ms late -> 1.0; b: 100 ms early -> 2.5; c: no rise near, kept; d: in silence -> 6.0.
    const expected = [1, 2.5, 3.2, 6];
    expect(Math.max(...out.map((x, i) => Math.abs(x.start - expected[i]!)))).toBeLessThanOrEqual(0.02);
    expect(out.every((x) => x.end >= x.start)).toBe(true);
  });

  it('spreads a segment\'s words over the speech in it by their length, the pause going to the word after the comma', () => {
    // Whisper crammed all five words into the segment's first second; the speech is 1-1.4 s and 2.5-4 s.
    const env = energyEnvelope(pcm(6, [[1, 1.4], [2.5, 4]]), 16_000);
    const crammed = [w('Hello,', 0, 0.2), w('big', 0.2, 0.4), w('wide', 0.4, 0.6), w('wonderful', 0.6, 0.8), w('world.', 0.8, 1)];
    const out = spreadOverSpeech(crammed, { start: 0, end: 5.5 }, env, 0);
    expect(Math.abs(out[0]!.start - 1)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(out[1]!.start - 2.5)).toBeLessThanOrEqual(0.02);
    // The rest follow in order inside the second stretch, longer words taking longer.
    expect(out.slice(2).every((x, i) => x.start > out[i + 1]!.start && x.start < 4)).toBe(true);
    expect(out[4]!.start - out[3]!.start).toBeGreaterThan(out[3]!.start - out[2]!.start);
  });

  it('keeps times on the source timeline when the samples start mid-file, and leaves flat audio alone', () => {
    const env = energyEnvelope(pcm(4, [[1, 3]]), 16_000);
    expect(starts(refineOnsets([w('a', 61.08, 61.5)], env, 60))).toEqual([61]);
    const flat = [w('a', 0.5, 1)];
    expect(refineOnsets(flat, energyEnvelope(pcm(4, [[0, 4]]), 16_000), 0)).toEqual(flat);
  });

  it('reads the samples of a WAV that has a LIST chunk before its data', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'a.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=440:d=0.5', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', file]);
    const samples = wavSamples(readFileSync(file));
    expect(samples.length).toBe(8000);
    expect(Math.max(...samples)).toBeGreaterThan(1000);
  });
});

describe('argument builders', () => {
  it('decodes only the range, first audio stream, 16 kHz mono PCM', () => {
    expect(extractAudioArgs('/in.mp4', { start: 12.5, end: 70 }, '/t/a.wav')).toEqual([
      '-nostdin', '-v', 'error', '-y', '-ss', '12.500', '-t', '57.500', '-i', '/in.mp4',
      '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '/t/a.wav',
    ]);
  });

  it('runs whisper-cli with beam search 5, temperature fallback, flash attention, full JSON output and progress', () => {
    expect(whisperArgs({ modelPath: '/m.bin', wavPath: '/a.wav', language: 'auto', threads: 2, outputBase: '/t/out', decoding: DEFAULT_DECODING })).toEqual([
      '-m', '/m.bin', '-f', '/a.wav', '-l', 'auto', '-t', '2', '-bs', '5', '-bo', '5', '-fa', '-ojf', '-of', '/t/out', '-np', '-pp',
    ]);
    // DTW token timestamps need flash attention off; -nf turns temperature fallback off.
    expect(whisperArgs({ modelPath: '/m.bin', wavPath: '/a.wav', language: 'en', threads: 2, outputBase: '/t/out',
      decoding: { beamSize: 1, bestOf: 1, temperatureFallback: false, dtwPreset: dtwPresetFor('tiny.en-q8_0') } })).toEqual([
      '-m', '/m.bin', '-f', '/a.wav', '-l', 'en', '-t', '2', '-bs', '1', '-bo', '1', '-nf', '-nfa', '-dtw', 'tiny.en', '-ojf', '-of', '/t/out', '-np', '-pp',
    ]);
    expect([dtwPresetFor('base-q5_1'), dtwPresetFor('large-v3-turbo'), dtwPresetFor('my-model')]).toEqual(['base', 'large.v3.turbo', null]);
  });
});

describe('forced alignment input and output (pocketsphinx)', () => {
  it('spells what Whisper writes as digits the way it is said, and gives up on what it cannot spell', () => {
    expect(spokenTokens('him$50.')).toEqual(['him', 'fifty', 'dollars']);
    expect(spokenTokens('$1,200')).toEqual(['one', 'thousand', 'two', 'hundred', 'dollars']);
    expect(spokenTokens('9:30')).toEqual(['nine', 'thirty']);
    expect(spokenTokens('20%')).toEqual(['twenty', 'percent']);
    expect(spokenTokens('"Well-known,')).toEqual(['well', 'known']);
    expect(spokenTokens("Don't")).toEqual(["don't"]);
    expect(spokenTokens('1990s')).toBeNull();
  });

  it('reads word times from -hypseg lines, leaving out skipped null transitions', () => {
    const r = parseHypseg('u3 S 0 T -11840 A -10492 L -1348 -1 0 0 (NULL) 0 -1135 0 man 53 -543 -337 <sil> 315 -587 0 unless 347 -123 0 to(3) 357')!;
    expect(r.id).toBe('u3');
    expect(r.words.map((w) => [w.word, w.from, w.to, w.filler])).toEqual([
      ['man', 0, 53, false], ['<sil>', 53, 315, true], ['unless', 315, 347, false], ['to', 347, 357, false],
    ]);
    // Fillers between words are passed over; a word the dictionary lacks ([SPEECH] in the grammar) takes one.
    expect(matchDecoded(r.words, ['man', 'unless', 'to'])).toEqual([0, 2, 3]);
    expect(matchDecoded(r.words, ['man', 'unless'])).toBeNull();
    expect(matchDecoded(parseHypseg('u0 S 0 T 1 A 1 L 0 0 -1 0 old 8 -2 0 [SPEECH] 20 -3 0 <sil> 30 -4 0 keeper 50')!.words, ['old', '[SPEECH]', 'keeper'])).toEqual([0, 1, 3]);
  });

  it('is off when SHORTS_POCKETSPHINX=off or the binary is missing', () => {
    expect(findForcedAligner({ SHORTS_POCKETSPHINX: 'off', PATH: process.env.PATH })).toBeNull();
    expect(findForcedAligner({ SHORTS_POCKETSPHINX: '/nonexistent/pocketsphinx_batch' })).toBeNull();
  });
});

describe('giveEveryWordTime', () => {
  it('gives a word squeezed to nothing time in the pause before it, so its caption page is shown', () => {
    // As measured on the shipped sample: "you." stamped at the next sentence's first word, after a pause.
    const words = [
      { text: 'tells', start: 12.53, end: 12.85, probability: 0.9 },
      { text: 'you.', start: 13.47, end: 13.47, probability: 0.9 },
      { text: 'Most', start: 13.47, end: 13.81, probability: 0.9 },
    ];
    const out = giveEveryWordTime(words, 80);
    expect(out[1]!.end - out[1]!.start).toBeCloseTo(MIN_WORD_SEC, 6);
    expect(out[1]!.end).toBeLessThanOrEqual(out[2]!.start);
    expect(out[1]!.start).toBeGreaterThanOrEqual(out[0]!.end);
    // Words with time keep it.
    expect(out[0]).toEqual(words[0]);
    expect(out[2]).toEqual(words[2]);
  });

  it('extends the end first when the next word leaves room', () => {
    const out = giveEveryWordTime([{ text: 'reasons.', start: 28.715, end: 28.715, probability: 1 }], 80);
    expect(out[0]!.start).toBe(28.715);
    expect(out[0]!.end).toBeCloseTo(28.815, 6);
  });
});
