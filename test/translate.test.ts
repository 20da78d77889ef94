// Caption translation (captionLanguage != language) against local servers that speak the LibreTranslate
// API (GET /languages, POST /translate) and the OpenAI chat API (POST /v1/chat/completions). They stand
// in for the translation service an operator runs; their "translation" is a recognisable transformation
// ("ES:" + the words reversed) so the tests can tell translated captions from the original text.
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  supportsPair, translateTexts, translatedCues, translatorFromEnv, TranslationError, type TranslatorConfig,
} from '../src/pipeline/captions/translate.js';
import { Orchestrator } from '../src/engine/orchestrator.js';
import { captionCuesFor } from '../src/pipeline/captions/caption-cues.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { createTranscriber, modelSpecs } from '../src/pipeline/transcribe/transcribe.js';
import { buildAss, buildCues } from '../src/pipeline/captions/captions.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';
import { Service } from '../src/service/service.js';
import { PipelineError, ShortsError } from '../src/errors.js';
import type { CaptionCue } from '../src/domain/captions.js';
import type { Transcript, Word } from '../src/domain/transcript.js';
import { SAMPLE } from './helpers/cli.js';
import { seed, warmCache } from './helpers/seeded-cache.js';
import { rejection as rejectionOf } from './helpers/rejection.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const rejection = async (p: Promise<unknown>) => (await rejectionOf(p)) as Error;

/** The stub service's "translation": recognisably not the input, and order-revealing. */
const fakeEs = (s: string) => `ES: ${s.split(' ').reverse().join(' ')}`;

interface Seen { method: string; path: string; body: Record<string, unknown> | null; auth?: string }

type Mode = 'ok' | 'short' | 'error500';

class StubServer {
  seen: Seen[] = [];
  mode: Mode = 'ok';
  /** LibreTranslate's language list: English speaks to Spanish and French only. */
  languages: unknown = [
    { code: 'en', name: 'English', targets: ['en', 'es', 'fr', 'zh-Hans'] },
    { code: 'es', name: 'Spanish', targets: ['en', 'es'] },
    { code: 'fr', name: 'French', targets: ['en', 'fr'] },
    { code: 'zh-Hans', name: 'Chinese', targets: ['en', 'zh-Hans'] },
  ];
  private server!: Server;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let raw = '';
      req.on('data', (c: Buffer) => { raw += c.toString(); });
      req.on('end', () => {
        const body = raw ? JSON.parse(raw) as Record<string, unknown> : null;
        this.seen.push({ method: req.method ?? '', path: req.url ?? '', body, auth: req.headers.authorization });
        this.answer(req, body, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> { return new Promise((resolve) => this.server.close(() => resolve())); }

  private answer(req: IncomingMessage, body: Record<string, unknown> | null, res: ServerResponse): void {
    const json = (status: number, value: unknown) => {
      res.statusCode = status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(value));
    };
    if (this.mode === 'error500') return json(500, { error: 'model crashed' });
    if (req.method === 'GET' && req.url === '/languages') return json(200, this.languages);
    if (req.method === 'POST' && req.url === '/translate') {
      const q = body?.q as string[];
      const out = q.map(fakeEs);
      return json(200, { translatedText: this.mode === 'short' ? out.slice(1) : out });
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      const user = (body?.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
      const texts = JSON.parse(/\n(\[.*\])\n/s.exec(user)![1]!) as string[];
      const out = texts.map(fakeEs);
      const content = JSON.stringify({ translations: this.mode === 'short' ? out.slice(1) : out });
      return json(200, { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    }
    json(404, { error: 'not found' });
  }
}

const stub = new StubServer();
let libre: TranslatorConfig;
let openai: TranslatorConfig;

beforeAll(async () => {
  await stub.start();
  libre = { kind: 'libretranslate', baseUrl: stub.base, apiKey: 'lt-key' };
  openai = { kind: 'openai', baseUrl: `${stub.base}/v1`, apiKey: 'sk-test', model: 'tiny-model' };
});
afterAll(() => stub.stop());
beforeEach(() => { stub.seen = []; stub.mode = 'ok'; });

describe('translatorFromEnv', () => {
  it('is null without a URL, and LibreTranslate by default', () => {
    expect(translatorFromEnv({})).toBeNull();
    expect(translatorFromEnv({ SHORTS_TRANSLATE_URL: 'http://127.0.0.1:5000/' })).toEqual({ kind: 'libretranslate', baseUrl: 'http://127.0.0.1:5000' });
    expect(translatorFromEnv({ SHORTS_TRANSLATE_URL: 'http://lt:5000', SHORTS_TRANSLATE_API_KEY: 'k' })).toEqual({ kind: 'libretranslate', baseUrl: 'http://lt:5000', apiKey: 'k' });
  });

  it('refuses unusable settings rather than guessing', () => {
    expect(translatorFromEnv({ SHORTS_TRANSLATE_URL: 'ftp://x' })).toBeNull();
    expect(translatorFromEnv({ SHORTS_TRANSLATE_URL: 'http://x', SHORTS_TRANSLATE_KIND: 'deepl' })).toBeNull();
    // An OpenAI-compatible endpoint needs a model.
    expect(translatorFromEnv({ SHORTS_TRANSLATE_URL: 'http://x/v1', SHORTS_TRANSLATE_KIND: 'openai' })).toBeNull();
  });

  it('reuses the SHORTS_LLM_* endpoint for kind openai when no URL is given', () => {
    const env = { SHORTS_TRANSLATE_KIND: 'openai', SHORTS_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', SHORTS_LLM_MODEL: 'qwen', SHORTS_LLM_API_KEY: 'sk' };
    expect(translatorFromEnv(env)).toEqual({ kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen', apiKey: 'sk' });
    expect(translatorFromEnv({ ...env, SHORTS_TRANSLATE_MODEL: 'translator' })?.model).toBe('translator');
    // LibreTranslate never borrows the LLM endpoint: it speaks another API.
    expect(translatorFromEnv({ SHORTS_LLM_BASE_URL: 'http://127.0.0.1:11434/v1', SHORTS_LLM_MODEL: 'qwen' })).toBeNull();
  });
});

describe('supportsPair', () => {
  it('follows LibreTranslate\'s /languages targets', async () => {
    expect(await supportsPair(libre, 'en', 'es')).toBe(true);
    expect(await supportsPair(libre, 'es', 'fr')).toBe(false); // es lists no fr target
    expect(await supportsPair(libre, 'en', 'de')).toBe(false);
    expect(await supportsPair(libre, 'de', 'en')).toBe(false);
    expect(await supportsPair(libre, 'en', 'zh')).toBe(true); // spec zh is zh-Hans there
    expect(stub.seen.every((s) => s.method === 'GET' && s.path === '/languages')).toBe(true);
  });

  it('treats servers without `targets` as translating between every listed language', async () => {
    const saved = stub.languages;
    stub.languages = [{ code: 'en', name: 'English' }, { code: 'es', name: 'Spanish' }];
    try {
      expect(await supportsPair(libre, 'es', 'en')).toBe(true);
      expect(await supportsPair(libre, 'en', 'fr')).toBe(false);
    } finally {
      stub.languages = saved;
    }
  });

  it('takes an OpenAI-compatible model to handle the spec languages, without asking it', async () => {
    expect(await supportsPair(openai, 'en', 'es')).toBe(true);
    expect(await supportsPair(openai, 'en', 'tlh')).toBe(false);
    expect(stub.seen).toEqual([]);
  });

  it('throws when the service cannot be asked', async () => {
    stub.mode = 'error500';
    await expect(supportsPair(libre, 'en', 'es')).rejects.toThrow();
  });
});

describe('translateTexts', () => {
  const texts = ['Why do ninety percent', 'of new restaurants fail?', 'It is almost never the food.'];

  it('LibreTranslate: one batch, in order, with the key and the resolved codes', async () => {
    expect(await translateTexts(libre, texts, 'en', 'es')).toEqual(texts.map(fakeEs));
    const post = stub.seen.find((s) => s.method === 'POST')!;
    expect(post.path).toBe('/translate');
    expect(post.body).toEqual({ q: texts, source: 'en', target: 'es', format: 'text', api_key: 'lt-key' });
    expect(await translateTexts(libre, ['hello'], 'en', 'zh')).toEqual([fakeEs('hello')]);
    expect(stub.seen.at(-1)!.body).toMatchObject({ source: 'en', target: 'zh-Hans' });
  });

  it('splits long lists into batches and keeps the order', async () => {
    const many = Array.from({ length: 60 }, (_, i) => `phrase number ${i}`);
    expect(await translateTexts(libre, many, 'en', 'es')).toEqual(many.map(fakeEs));
    expect(stub.seen.filter((s) => s.method === 'POST').length).toBeGreaterThan(1);
  });

  it('OpenAI-compatible: a JSON array in, the same count out, no retries', async () => {
    expect(await translateTexts(openai, texts, 'en', 'es')).toEqual(texts.map(fakeEs));
    expect(stub.seen).toHaveLength(1);
    expect(stub.seen[0]!.path).toBe('/v1/chat/completions');
    expect(stub.seen[0]!.auth).toBe('Bearer sk-test');
    expect(stub.seen[0]!.body).toMatchObject({ model: 'tiny-model', temperature: 0 });
    expect(JSON.stringify(stub.seen[0]!.body)).toContain('English (en) to Spanish (es)');
  });

  it('is an error naming the pair when the count does not match', async () => {
    stub.mode = 'short';
    for (const cfg of [libre, openai]) {
      const e = await rejection(translateTexts(cfg, texts, 'en', 'es'));
      expect(e).toBeInstanceOf(TranslationError);
      expect(e.message).toMatch(/returned 2 texts for 3 \("en" -> "es"\)/);
    }
  });

  it('is an error naming the pair when the server fails', async () => {
    stub.mode = 'error500';
    for (const cfg of [libre, openai]) {
      const e = await rejection(translateTexts(cfg, texts, 'en', 'es'));
      expect(e).toBeInstanceOf(TranslationError);
      expect(e.message).toContain('"en" -> "es"');
    }
    // One POST per attempt for OpenAI: a paid call is never repeated behind the operator's back.
    expect(stub.seen.filter((s) => s.path === '/v1/chat/completions')).toHaveLength(1);
  });

  it('refuses a pair the LibreTranslate server does not list, without posting', async () => {
    const e = await rejection(translateTexts(libre, texts, 'en', 'de'));
    expect(e.message).toMatch(/does not translate "en" -> "de"/);
    expect(stub.seen.some((s) => s.method === 'POST')).toBe(false);
  });
});

// --- cues ---------------------------------------------------------------------------------------

function words(spec: [string, number, number][]): Word[] {
  return spec.map(([text, start, end]) => ({ text, start, end, probability: 0.9 }));
}

const SPOKEN = words([
  ['Why', 10.0, 10.3], ['do', 10.3, 10.5], ['ninety', 10.5, 10.9], ['percent', 10.9, 11.4], ['fail?', 11.4, 11.9],
  ['It', 13.0, 13.2], ['is', 13.2, 13.3], ['never', 13.3, 13.7], ['the', 13.7, 13.8], ['food.', 13.8, 14.3],
]);

describe('translated cues', () => {
  it('keep each phrase\'s times and spread the translated words over at most wordsPerCue groups', () => {
    const cues: CaptionCue[] = [{ start: 0, end: 1.9, words: SPOKEN.slice(0, 5) }, { start: 3, end: 4.8, words: SPOKEN.slice(5) }];
    const out = translatedCues(cues, ['uno dos tres cuatro cinco seis siete', 'ocho'], 3);
    expect(out).toHaveLength(2);
    expect(out[0]!.words.map((w) => w.text)).toEqual(['uno dos tres', 'cuatro cinco', 'seis siete']);
    expect(out[0]!.words.every((w) => w.start === 0 && w.end === 1.9)).toBe(true);
    // What was spoken stays with the translation (emoji accents are looked up in it).
    expect(out[1]).toEqual({ start: 3, end: 4.8, words: [{ text: 'ocho', start: 3, end: 4.8, probability: 1 }], spoken: ['It', 'is', 'never', 'the', 'food.'] });
    expect(() => translatedCues(cues, ['one'], 3)).toThrow();
  });

  it('captionCuesFor translates every clip in one batch and draws without per-word highlight', async () => {
    const transcript = { words: SPOKEN } as Transcript;
    const clips = [{ id: 'a', clip: { start: 10, end: 12.5 } }, { id: 'b', clip: { start: 12.5, end: 15 } }];
    const template = DEFAULT_TEMPLATE;
    const perCue = template.wordsPerLine * template.maxLines;
    const { cues, template: drawn } = await captionCuesFor(clips, transcript, template, { from: 'en', to: 'es', translator: libre });
    expect(stub.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    expect(drawn.animation).toBe('none');
    for (const { id, clip } of clips) {
      const original = buildCues(SPOKEN, clip, { wordsPerCue: perCue });
      const translated = cues.get(id)!;
      expect(translated.map((c) => [c.start, c.end])).toEqual(original.map((c) => [c.start, c.end]));
      expect(translated.map((c) => c.words.map((w) => w.text).join(' ')))
        .toEqual(original.map((c) => fakeEs(c.words.map((w) => w.text).join(' '))));
      const ass = buildAss(translated, drawn, { width: 270, height: 480 });
      expect(ass).not.toContain('\\1c'); // no active-word recolouring
      const events = dialogues(ass);
      expect(events).toHaveLength(original.length);
      original.forEach((c, i) => {
        expect(events[i]!.start).toBeCloseTo(c.start, 2);
        expect(events[i]!.end).toBeCloseTo(c.end, 2);
        expect(norm(events[i]!.text)).toBe(norm(fakeEs(c.words.map((w) => w.text).join(' '))));
      });
    }
  });

  it('without a caption language the cues and template are unchanged and nothing is asked', async () => {
    const transcript = { words: SPOKEN } as Transcript;
    const out = await captionCuesFor([{ id: 'a', clip: { start: 10, end: 15 } }], transcript, DEFAULT_TEMPLATE, { from: 'en', to: '', translator: libre });
    expect(out.template).toBe(DEFAULT_TEMPLATE);
    expect(out.cues.get('a')).toEqual(buildCues(SPOKEN, { start: 10, end: 15 }, { wordsPerCue: DEFAULT_TEMPLATE.wordsPerLine * DEFAULT_TEMPLATE.maxLines }));
    expect(stub.seen).toEqual([]);
  });

  it('fails with a PipelineError naming the pair when the translation fails or nothing is configured', async () => {
    const transcript = { words: SPOKEN } as Transcript;
    const clips = [{ id: 'a', clip: { start: 10, end: 15 } }];
    stub.mode = 'error500';
    const e = await rejection(captionCuesFor(clips, transcript, DEFAULT_TEMPLATE, { from: 'en', to: 'es', translator: libre }));
    expect(e).toBeInstanceOf(PipelineError);
    expect(e.message).toContain('"en" -> "es"');
    const none = await rejection(captionCuesFor(clips, transcript, DEFAULT_TEMPLATE, { from: 'en', to: 'es', translator: null }));
    expect(none).toBeInstanceOf(PipelineError);
    expect(none.message).toContain('"en" -> "es"');
  });
});

interface Dialogue { start: number; end: number; text: string }

function dialogues(ass: string): Dialogue[] {
  const secs = (t: string) => { const [h, m, s] = t.split(':'); return Number(h) * 3600 + Number(m) * 60 + Number(s); };
  return ass.split('\n').filter((l) => l.startsWith('Dialogue:')).map((l) => {
    const parts = l.slice('Dialogue: '.length).split(',');
    return { start: secs(parts[1]!), end: secs(parts[2]!), text: parts.slice(9).join(',') };
  });
}

/**
 * Text as the template lays it out: line breaks are spaces, case may be upper, and a page moved off a face
 * carries its own alignment tag ({\an8}).
 */
function norm(s: string): string {
  return s.replace(/\{\\[^}]*\}/g, '').replace(/\\N/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

// --- creation -----------------------------------------------------------------------------------

describe('creation with captionLanguage', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'translate-svc-'));
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  const body = { file: SAMPLE, start: 0, end: 80, language: 'en', captionLanguage: 'es' };
  const account = { id: 'local', email: 'me@localhost' };

  async function refusal(service: Service, b: Record<string, unknown> = body): Promise<ShortsError> {
    const e = await rejection(service.create(account, b, 'local'));
    expect(e).toBeInstanceOf(ShortsError);
    return e as ShortsError;
  }

  it('is refused, naming the pair, when no translation service is configured', async () => {
    const e = await refusal(new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: null }));
    expect(e.code).toBe('invalid_request');
    expect(e.message).toContain('"es"');
    expect(e.message).toContain('"en"');
  });

  it('is refused, naming the pair, when the LibreTranslate server lacks it', async () => {
    const e = await refusal(new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: libre }), { ...body, captionLanguage: 'de' });
    expect(e.code).toBe('invalid_request');
    expect(e.message).toContain('"en" -> "de"');
    expect(e.details).toEqual({ field: 'captionLanguage' });
  });

  it('is refused, naming the pair, when the service cannot be reached', async () => {
    const e = await refusal(new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: { kind: 'libretranslate', baseUrl: 'http://127.0.0.1:9' } }));
    expect(e.code).toBe('invalid_request');
    expect(e.message).toContain('"en" -> "es"');
  });

  // English captions for other speech come from the multilingual model itself (issue 11, part 5).
  const models = (multilingual: string) => modelSpecs({ model: process.env.SHORTS_WHISPER_MODEL!, multilingualModel: multilingual });
  it('English captions for Spanish speech need no service while a multilingual model can listen', async () => {
    const es = { ...body, language: 'es', captionLanguage: 'en' };
    const created = await new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: null, whisperModels: models(process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL!) }).create(account, es, 'local');
    expect((await store.getRequest(created.requestId))!.options.captionLanguage).toBe('en');
    // A service without the pair is then not asked for it: the request does not depend on it.
    const withLibre = await new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: libre, whisperModels: models(process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL!) }).create(account, es, 'local');
    expect(withLibre.status).toBe('processing');
  });

  it('English captions for Spanish speech are refused with no service and no multilingual model', async () => {
    const es = { ...body, language: 'es', captionLanguage: 'en' };
    // The multilingual model is what transcribes Spanish, so the language is refused first.
    const e = await refusal(new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: null, whisperModels: models('off') }), es);
    expect(e.code).toBe('invalid_request');
    expect(e.message).toMatch(/English only|multilingual/);
    // Other pairs still need the service, multilingual model or not.
    const f = await refusal(new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: null, whisperModels: models(process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL!) }), { ...body, language: 'es', captionLanguage: 'fr' });
    expect(f.message).toMatch(/captions in "fr" for speech in "es" need a translation service/);
  });

  it('is accepted when the service translates the pair', async () => {
    const created = await new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: libre }).create(account, body, 'local');
    expect(created.status).toBe('processing');
    expect((await store.getRequest(created.requestId))!.options.captionLanguage).toBe('es');
    // The same language twice is no translation at all: nothing to ask.
    stub.seen = [];
    await new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: null }).create(account, { ...body, captionLanguage: 'en' }, 'local');
    expect(stub.seen).toEqual([]);
  });
});

// --- end to end ---------------------------------------------------------------------------------

describe('a real run with captionLanguage es', () => {
  const saved: Record<string, string | undefined> = {};
  const envKeys = ['SHORTS_TRANSLATE_URL', 'SHORTS_TRANSLATE_KIND'];
  afterEach(() => { for (const k of envKeys) { if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k]; } });

  it('burns in the translated phrases at the cue times', async () => {
    for (const k of envKeys) saved[k] = process.env[k];
    process.env.SHORTS_TRANSLATE_URL = stub.base;
    delete process.env.SHORTS_TRANSLATE_KIND;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'translate-e2e-'));
    // What is checked is the captions made from the words, not the recognition or the picture: the
    // transcript of the sample's 0-60 s is the one made once per machine (seeded-cache.ts, shared with
    // other files), and the clip is fitted on a solid background (no face sampling for a crop).
    seed(dataDir, await warmCache());
    const store = new SqliteRequestStore(path.join(dataDir, 'shorts.db'));
    const service = new Service(store, { blobs: new FsBlobStore(store.dataDir), translator: libre });
    const { requestId } = await service.create({ id: 'local', email: 'me@localhost' }, {
      file: SAMPLE, start: 0, end: 60, maxShorts: 1, preferredLength: 'under30sec', layout: 'fit', blurBackground: false,
      language: 'en', captionLanguage: 'es',
    }, 'local');
    const orchestrator = new Orchestrator({
      store, blobs: new FsBlobStore(dataDir), media: createLocalMediaRunner(), dataDir, transcriber: createTranscriber({ dataDir }),
      render: { width: 270, height: 480, preset: 'ultrafast', crf: 30, x264Params: '', concurrency: 1 },
    });
    const record = await orchestrator.run(requestId, new AbortController().signal);
    expect(record.status, record.failureReason ?? '').toBe('completed');
    const shorts = await store.listShorts(requestId);
    expect(shorts).toHaveLength(1);
    expect(shorts[0]!.error).toBe(false);
    expect(existsSync(path.join(dataDir, shorts[0]!.fileKey!))).toBe(true);

    // The captions as rendered are kept with the clip (exports and re-renders read them).
    const keep = path.join(dataDir, 'jobs', requestId, 'captions');
    const assFiles = readdirSync(keep);
    expect(assFiles).toEqual([`${shorts[0]!.id}.ass`]);
    const events = dialogues(readFileSync(path.join(keep, assFiles[0]!), 'utf8'));
    // What the service was asked to translate is what the clip's phrases say, and every event shows
    // its phrase's translation, in order, never the original text and never a lit word.
    const asked = stub.seen.filter((s) => s.method === 'POST').flatMap((s) => s.body!.q as string[]);
    expect(asked.length).toBeGreaterThan(2);
    expect(events).toHaveLength(asked.length);
    events.forEach((ev, i) => {
      expect(norm(ev.text)).toBe(norm(fakeEs(asked[i]!)));
      expect(ev.text).not.toContain('\\1c');
      expect(ev.end).toBeGreaterThan(ev.start);
      if (i > 0) expect(ev.start).toBeGreaterThanOrEqual(events[i - 1]!.end - 0.011);
    });
    // The phrase times are the original cues' times: rebuild them from the cached transcript.
    const transcript = await createTranscriber({ dataDir }).transcribe({
      mediaPath: SAMPLE, range: { start: (await store.getRequest(requestId))!.start, end: (await store.getRequest(requestId))!.end }, language: 'en',
      cacheKey: (JSON.parse(readFileSync(path.join(dataDir, 'jobs', requestId, 'source.json'), 'utf8')) as { source: { contentKey: string } }).source.contentKey,
      signal: new AbortController().signal,
    });
    {
      const clip = { start: shorts[0]!.startTimestamp, end: shorts[0]!.endTimestamp };
      const cues = buildCues(transcript.words, clip, { wordsPerCue: DEFAULT_TEMPLATE.wordsPerLine * DEFAULT_TEMPLATE.maxLines });
      expect(cues.map((c) => c.words.map((w) => w.text).join(' '))).toEqual(asked);
      cues.forEach((c, i) => {
        expect(events[i]!.start).toBeCloseTo(c.start, 1);
        expect(events[i]!.end).toBeCloseTo(c.end, 1);
      });
    }
  }, 300_000);
});
