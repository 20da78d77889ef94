// Issue 11 parts 1-2: which Whisper model transcribes which language, refusals at creation, `auto`, and the
// warning when the speech is not in the named language. Real whisper.cpp, the shared tiny.en (main) and base
// (multilingual) models, real recorded Spanish prompts (Debian asterisk-core-sounds-es-wav), the real CLI.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey } from '../src/pipeline/fetch/fetch.js';
import { createTranscriber, modelSpecs, wavSamples } from '../src/pipeline/transcribe/transcribe.js';
import { fileIsMultilingual, modelFacts, parseModelSpec } from '../src/pipeline/transcribe/whisper-model.js';
import {
  MISMATCH_MIN_PROBABILITY, languageForAuto, languageRefusal, mismatchWarning, modelForLanguage, unsureDetectionWarning,
  type LanguageDetection, type ModelSet,
} from '../src/pipeline/transcribe/model-choice.js';
import { detectArgs, runLanguageDetection, speechiestWindow } from '../src/pipeline/transcribe/whisper-detect.js';
import { parseDetectedLanguage, whisperCliPath } from '../src/pipeline/transcribe/whisper-cli.js';
import { energyEnvelope } from '../src/pipeline/transcribe/onset-align.js';
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { Service } from '../src/service/service.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { ShortsError } from '../src/errors.js';
import { JFK_TEXT, JFK_WAV, concatSpeech, video } from './helpers/media.js';
import { cliEnv, runCli } from './helpers/cli.js';
import { rejection } from './helpers/rejection.js';
import { wordErrorRate } from './helpers/wer.js';
import type { RequestDetail, StatusResponse } from '../src/api/types.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const MAIN = process.env.SHORTS_WHISPER_MODEL!;
const MULTILINGUAL = process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL!;
const ES = '/usr/share/asterisk/sounds/es';
// Texts from the package's core-sounds-es.txt.
const ES_PARTS: [string, string][] = [
  ['vm-intro', 'Por favor deje su mensaje despues del tono. Al terminar, cuelgue o presione la tecla de numero.'],
  ['conf-getpin', 'Por favor ingrese la clave de entrada para la conferencia.'],
  ['queue-thankyou', 'Muchas gracias por su paciencia.'],
  ['agent-pass', 'Por favor ingrese su contrasena seguida por la tecla de numero.'],
];
const ES_TEXT = ES_PARTS.map(([, t]) => t).join(' ');
const SPANISH_WORDS = new Set(['por', 'favor', 'su', 'el', 'la', 'de', 'para', 'muchas', 'gracias', 'mensaje', 'tecla', 'clave', 'ingrese']);
const tokens = (s: string) => s.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').split(/[^\p{L}\d]+/u).filter(Boolean);

const tmp: string[] = [];
const tmpDir = () => { const d = mkdtempSync(path.join(os.tmpdir(), 'shorts-lang-')); tmp.push(d); return d; };
afterAll(() => tmp.forEach((d) => rmSync(d, { recursive: true, force: true })));

function facts(main: Partial<ModelSet['main']>, multilingual: Partial<ModelSet['main']> | null): ModelSet {
  const base = { name: 'x', multilingual: false, available: true };
  return { main: { ...base, ...main }, multilingual: multilingual && { ...base, ...multilingual } };
}
const detection = (language: string, probability: number): LanguageDetection => ({ language, probability, window: { start: 12, end: 42 }, model: 'base-q5_1' });

describe('model choice (pure)', () => {
  const enOnly = facts({ name: 'tiny.en-q8_0' }, { name: 'base-q5_1', multilingual: true });
  it('keeps English on the main model and sends other languages to the multilingual one', () => {
    expect(modelForLanguage('en', enOnly)).toMatchObject({ role: 'main' });
    expect(modelForLanguage('es', enOnly)).toMatchObject({ role: 'multilingual', model: { name: 'base-q5_1' } });
    expect(modelForLanguage('es', facts({ name: 'small', multilingual: true }, null))).toMatchObject({ role: 'main' });
  });

  it('refuses a language no configured model can transcribe, naming the model, the language and why', () => {
    const off = languageRefusal('es', facts({ name: 'tiny.en-q8_0' }, null));
    expect(off).toMatch(/"tiny\.en-q8_0".*English only.*Spanish \(es\).*SHORTS_WHISPER_MULTILINGUAL_MODEL is off/);
    expect(languageRefusal('de', facts({ name: 'tiny.en' }, { name: 'gone', available: false, problem: '/m/gone.bin does not exist' })))
      .toMatch(/German \(de\).*\/m\/gone\.bin does not exist/);
    expect(languageRefusal('fr', facts({ name: 'tiny.en' }, { name: 'base.en' }))).toMatch(/"base\.en", which is English-only too/);
    expect(languageRefusal('auto', facts({ name: 'tiny.en' }, null))).toMatch(/"auto" needs a multilingual/);
    expect(languageRefusal('en', facts({ name: 'tiny.en' }, null))).toBeNull();
  });

  it('warns only when detection is confident and the language really differs', () => {
    expect(mismatchWarning('en', detection('es', 0.95))).toMatch(/sounds like Spanish \(es\), not English \(en\).*0:12-0:42.*language "es"/);
    expect(mismatchWarning('en', detection('en', 0.99))).toBeNull();
    expect(mismatchWarning('en', detection('es', MISMATCH_MIN_PROBABILITY - 0.01))).toBeNull();
    expect(mismatchWarning('hr', detection('sr', 0.9))).toBeNull();
    expect(mismatchWarning('auto', detection('es', 0.99))).toBeNull();
    // A named non-English language needs a near-certain detection: Whisper hears some Spanish prompts as Italian.
    expect(mismatchWarning('es', detection('it', 0.84))).toBeNull();
    expect(mismatchWarning('es', detection('en', 0.99))).toMatch(/sounds like English \(en\), not Spanish \(es\)/);
    expect(mismatchWarning('en', detection('haw', 0.9))).toMatch(/check the language of the video/);
  });

  it('reads the detected language from whisper-cli and listens to the given window', () => {
    expect(parseDetectedLanguage('...\nwhisper_full_with_state: auto-detected language: es (p = 0.859847)\n')).toEqual({ language: 'es', probability: 0.859847 });
    expect(parseDetectedLanguage('no answer')).toBeNull();
    expect(detectArgs({ modelPath: 'm.bin', wavPath: 'a.wav', threads: 2 })).toEqual(expect.arrayContaining(['-dl', '-l', 'auto', '-f', 'a.wav']));
  });

  it('tells English-only from multilingual model files by their header', async () => {
    expect(await fileIsMultilingual(MAIN)).toBe(false);
    expect(await fileIsMultilingual(MULTILINGUAL)).toBe(true);
    expect(await fileIsMultilingual('/nonexistent/ggml-x.bin')).toBeNull();
    expect(await modelFacts(parseModelSpec('base-q5_1'))).toMatchObject({ multilingual: true, available: true });
    expect(await modelFacts(parseModelSpec('small.en-q5_1'))).toMatchObject({ multilingual: false });
  });
});

describe('the window detection listens to', () => {
  const rate = 16000;
  const jfk = wavSamples(readFileSync(JFK_WAV));
  /** 40 s of room tone, then JFK (11 s), then 20 s of room tone. */
  const toneThenJfk = () => {
    const samples = new Int16Array(rate * 71);
    for (let i = 0; i < samples.length; i++) samples[i] = Math.round(Math.sin(i * 12.9898) * 43758.5453 % 1 * 30);
    samples.set(jfk, rate * 40);
    return samples;
  };

  it('is the 30 s with the most speech, past a long quiet intro', () => {
    // The window must hold the speech.
    const samples = toneThenJfk();
    const w = speechiestWindow(energyEnvelope(samples, rate), samples.length / rate);
    expect(w.end - w.start).toBe(30);
    expect(w.start).toBeLessThanOrEqual(40.5);
    expect(w.end).toBeGreaterThanOrEqual(40 + jfk.length / rate - 0.5);
  });

  it('is what whisper.cpp hears: English past 40 s of room tone is detected as English', async () => {
    // whisper-cli detects on the first 30 s of its input whatever -ot says; the window is cut to its own WAV.
    const samples = toneThenJfk();
    const window = speechiestWindow(energyEnvelope(samples, rate), samples.length / rate);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'detect-window-'));
    try {
      const found = await runLanguageDetection(whisperCliPath(), { modelPath: MULTILINGUAL, samples, windowWav: path.join(dir, 'w.wav'), threads: 2, window });
      expect(found.language).toBe('en');
      expect(found.probability).toBeGreaterThan(0.5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('refused at creation (API)', () => {
  const store = new SqliteRequestStore(path.join(tmpDir(), 'shorts.db'));
  const account = { id: 'a', email: 'a@example.com' };
  const body = { fileUrl: 'https://example.com/v.mp4', start: 0, end: 60 };

  it('refuses Spanish with an English-only model and the multilingual model off, naming both', async () => {
    const service = new Service(store, { blobs: new FsBlobStore(store.dataDir), whisperModels: modelSpecs({ model: MAIN, multilingualModel: 'off' }) });
    const e = await rejection(service.create(account, { ...body, language: 'es' }, 'api'));
    expect(e).toBeInstanceOf(ShortsError);
    expect((e as ShortsError).code).toBe('invalid_request');
    expect((e as ShortsError).message).toMatch(/"tiny\.en-q8_0" transcribes English only.*Spanish \(es\)/);
    // English still goes through, and nothing was stored for the refused one.
    await service.create(account, { ...body, language: 'en' }, 'api');
    expect((await store.listRequests({ accountId: 'a', sortBy: 'createdAt', sortOrder: 'asc', page: 1, limit: 10 })).total).toBe(1);
  });

  it('refuses a multilingual model path that does not exist or is English-only; accepts a name still to download', async () => {
    const missing = new Service(store, { blobs: new FsBlobStore(store.dataDir), whisperModels: modelSpecs({ model: MAIN, multilingualModel: '/nonexistent/ggml-base.bin' }) });
    expect(((await rejection(missing.create(account, { ...body, language: 'fr' }, 'api'))) as Error).message).toMatch(/French \(fr\).*does not exist/);
    const englishOnly = new Service(store, { blobs: new FsBlobStore(store.dataDir), whisperModels: modelSpecs({ model: MAIN, multilingualModel: MAIN }) });
    expect(((await rejection(englishOnly.create(account, { ...body, language: 'fr' }, 'api'))) as Error).message).toMatch(/English-only too/);
    const toDownload = new Service(store, { blobs: new FsBlobStore(store.dataDir), whisperModels: modelSpecs({ model: MAIN, multilingualModel: 'base-q5_1' }) });
    await expect(toDownload.create(account, { ...body, language: 'fr' }, 'api')).resolves.toMatchObject({ status: 'processing' });
  });

  it('keeps language auto to local mode', async () => {
    const service = new Service(store, { blobs: new FsBlobStore(store.dataDir), whisperModels: modelSpecs({ model: MAIN, multilingualModel: MULTILINGUAL }) });
    const e = (await rejection(service.create(account, { ...body, language: 'auto' }, 'api'))) as ShortsError;
    expect(e.code).toBe('invalid_request');
    expect(e.message).toMatch(/"auto".*only accepted in local mode/);
  });
});

describe('advisory detection on English speech', () => {
  it('hears English in JFK named en: detection says en, so no warning', async () => {
    const found: LanguageDetection[] = [];
    const t = await createTranscriber({ dataDir: tmpDir(), model: MAIN, multilingualModel: MULTILINGUAL })
      .transcribe({ mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'en', checkLanguage: true, onLanguageDetected: (d) => found.push(d) });
    expect(t.model).toBe('tiny.en-q8_0');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ language: 'en', model: 'base-q5_1' });
    expect(mismatchWarning('en', found[0]!)).toBeNull();
  });
});

describe('offline, "auto" degrades to English instead of failing (issue 23)', () => {
  it('a multilingual model that cannot be downloaded: the English model transcribes, with a warning saying why', async () => {
    const before = process.env.SHORTS_WHISPER_MODEL_BASE_URL;
    // A closed loopback port: the download fails as it does on a machine without the model hub.
    process.env.SHORTS_WHISPER_MODEL_BASE_URL = 'http://127.0.0.1:9';
    try {
      const warnings: string[] = [];
      const t = createTranscriber({ dataDir: tmpDir(), model: MAIN, multilingualModel: 'base-q5_1' });
      const transcript = await t.transcribe({ mediaPath: JFK_WAV, range: { start: 0, end: 11 }, language: 'auto', onWarning: (w) => warnings.push(w) });
      expect(transcript).toMatchObject({ language: 'en', model: 'tiny.en-q8_0' });
      expect(wordErrorRate(JFK_TEXT, transcript.words.map((w) => w.text).join(' '))).toBeLessThan(0.2);
      expect(warnings).toEqual([expect.stringMatching(/not detected: .*could not download the Whisper model "base-q5_1".*transcribed as English with "tiny\.en-q8_0".*--language/)]);
    } finally {
      if (before === undefined) delete process.env.SHORTS_WHISPER_MODEL_BASE_URL;
      else process.env.SHORTS_WHISPER_MODEL_BASE_URL = before;
    }
  });

  it('a multilingual model path pointing nowhere: a local create of an English file completes, the warning on the request', async () => {
    const media = video({ duration: 35, width: 160, height: 120, fps: 10, audio: concatSpeech([JFK_WAV, JFK_WAV, JFK_WAV], 0.8) });
    const r = await runCli(['create', '--file', media, '--max-shorts', '1', '--preferred-length', 'under30sec', '--layout', 'fit', '--no-blur-background', '--no-captions', '--json'],
      cliEnv({ SHORTS_WHISPER_MULTILINGUAL_MODEL: '/nonexistent/ggml-base.bin' }));
    expect(r.code, r.stderr).toBe(0);
    const detail = JSON.parse(r.stdout) as RequestDetail;
    expect(detail.status).toBe('completed');
    expect(detail.warnings).toEqual([expect.stringMatching(/not detected: .*\/nonexistent\/ggml-base\.bin.*transcribed as English/)]);
  });
});

describe('Spanish speech end to end (shorts create, local mode)', () => {
  const env = cliEnv();
  let media: string;
  // What these check is the language the request is transcribed and recorded in, and its warnings: the
  // clip is made as cheaply as a request can make one (fitted, solid background: no face sampling; no captions).
  const args = () => ['create', '--file', media, '--start', '0', '--end', '60', '--max-shorts', '1', '--preferred-length', 'under30sec',
    '--layout', 'fit', '--no-blur-background', '--no-captions', '--json'];
  beforeAll(() => {
    const talk = concatSpeech(ES_PARTS.map(([name]) => path.join(ES, `${name}.wav`)), 0.8);
    media = video({ duration: 22, width: 160, height: 120, fps: 10, audio: talk });
  });

  it('--language es with the English-only main model: transcribed by the multilingual model, in Spanish words', async () => {
    const r = await runCli([...args(), '--language', 'es'], env);
    expect(r.code, r.stderr).toBe(0);
    const detail = JSON.parse(r.stdout) as RequestDetail;
    expect(detail.language).toBe('es');
    expect(detail.warnings).toBeUndefined();
    const words = tokens(detail.sentences.map((s) => s.sentence).join(' '));
    expect(words.filter((w) => SPANISH_WORDS.has(w)).length / words.length).toBeGreaterThan(0.3);
    expect(wordErrorRate(tokens(ES_TEXT).join(' '), words.join(' '))).toBeLessThan(0.35);
  }, 300_000);

  it('--language es: one whisper-cli run both detects and transcribes (issue 22: no separate detection run)', async () => {
    const media2 = createLocalMediaRunner();
    const found: LanguageDetection[] = [];
    const t = await createTranscriber({ dataDir: tmpDir(), model: MAIN, multilingualModel: MULTILINGUAL, media: media2 })
      .transcribe({ mediaPath: media, range: { start: 0, end: 22 }, language: 'es', checkLanguage: true, onLanguageDetected: (d) => found.push(d) });
    expect(media2.counts()['whisper-cli']).toBe(1);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ language: 'es', model: 'base-q5_1' });
    expect(found[0]!.probability).toBeGreaterThan(0.9);
    expect(t.language).toBe('es');
    expect(t.model).toBe('base-q5_1');
  }, 300_000);

  it('with no --language (auto for a local file): detects Spanish and records es', async () => {
    const r = await runCli(args(), env);
    expect(r.code, r.stderr).toBe(0);
    const detail = JSON.parse(r.stdout) as RequestDetail;
    expect(detail.language).toBe('es');
    expect(tokens(detail.sentences.map((s) => s.sentence).join(' ')).filter((w) => SPANISH_WORDS.has(w)).length).toBeGreaterThan(5);
    // The detection made for the first request answered this one (same content, range and model).
    const transcriber = createTranscriber({ dataDir: env.SHORTS_DATA_DIR!, model: MAIN, multilingualModel: MULTILINGUAL });
    const found: LanguageDetection[] = [];
    const t = await transcriber.transcribe({ mediaPath: media, range: { start: 0, end: 22 }, language: 'auto', cacheKey: await contentKey(media), onLanguageDetected: (d) => found.push(d) });
    expect(t.language).toBe('es');
    expect(found[0]?.probability).toBeGreaterThan(0.9);
  }, 300_000);

  it('--language en on Spanish speech: the request warns, in shorts create and shorts status', async () => {
    const r = await runCli([...args(), '--language', 'en'], env);
    expect(r.stderr).toMatch(/warning: the speech sounds like Spanish \(es\), not English \(en\)/);
    const id = (JSON.parse(r.stdout) as RequestDetail)._id;
    const status = await runCli(['status', id, '--json'], env);
    expect((JSON.parse(status.stdout) as StatusResponse).warnings?.[0]).toMatch(/sounds like Spanish \(es\)/);
    const table = await runCli(['status', id], env);
    expect(table.stderr).toMatch(/warning: the speech sounds like Spanish/);
  }, 300_000);

  it('refuses --language es when the multilingual model is off: readable message, non-zero exit, nothing run', async () => {
    const r = await runCli([...args(), '--language', 'es'], { ...env, SHORTS_WHISPER_MULTILINGUAL_MODEL: 'off' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid_request|transcribes English only/);
    expect(r.stderr).toMatch(/tiny\.en-q8_0.*Spanish \(es\)/);
  });
});

describe('an unsure detection with auto', () => {
  // What whisper.cpp's -dl says about 62 s of brown noise with base-q5_1 (measured).
  const noise: LanguageDetection = { language: 'nn', probability: 0.45, window: { start: 0, end: 30 }, model: 'base-q5_1' };
  const spanish: LanguageDetection = { language: 'es', probability: 0.97, window: { start: 0, end: 30 }, model: 'base-q5_1' };

  it('is transcribed as English, where noise reads as silence, and the request is told why', () => {
    expect(languageForAuto(noise)).toBe('en');
    expect(unsureDetectionWarning(noise)).toMatch(/could not be told with confidence \(best guess Norwegian Nynorsk \(nn\), p = 0\.45\).*transcribed as English.*--language/);
  });

  it('a confident one is trusted and not warned about', () => {
    expect(languageForAuto(spanish)).toBe('es');
    expect(unsureDetectionWarning(spanish)).toBeNull();
  });
});
