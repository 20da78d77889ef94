// Caption translation through a service the operator runs: a LibreTranslate server, or any
// OpenAI-compatible chat endpoint. Translation is never faked: a pair the service cannot do is refused
// at creation (supportsPair), and an answer that does not fit (wrong count, not strings) is an error,
// so untranslated text is never rendered as if it were translated.
import got from 'got';
import { LANGUAGES, languageLabel } from '../../languages.js';
import { NoContentError, chatJson } from '../../net/chat-completions.js';
import type { CaptionCue } from '../../domain/captions.js';
import { setting } from '../../settings.js';

export interface TranslatorConfig { kind: 'libretranslate' | 'openai'; baseUrl: string; apiKey?: string; model?: string }

/** A translation the service could not do; the message names the pair. */
export class TranslationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TranslationError';
  }
}

const GET_TIMEOUT_MS = 15_000;
const POST_TIMEOUT_MS = 120_000;
/** Texts per request: LibreTranslate servers may cap batch sizes (LT_BATCH_LIMIT); small batches are safe everywhere. */
const BATCH = 25;

/**
 * SHORTS_TRANSLATE_URL is the service's base URL (LibreTranslate: the server root, e.g.
 * http://127.0.0.1:5000; OpenAI-compatible: the /v1 base). SHORTS_TRANSLATE_KIND is `libretranslate`
 * (default) or `openai`; SHORTS_TRANSLATE_API_KEY and SHORTS_TRANSLATE_MODEL are optional, except that
 * `openai` needs a model. With SHORTS_TRANSLATE_KIND=openai and no URL, the SHORTS_LLM_* endpoint
 * (base URL, key, model) is reused, so one local model server can do both jobs. Anything unusable
 * (unknown kind, non-http URL, openai without a model) is "not configured": requests that need a
 * translation are then refused, never rendered untranslated.
 */
export function translatorFromEnv(env: NodeJS.ProcessEnv = process.env): TranslatorConfig | null {
  const kind = (setting('SHORTS_TRANSLATE_KIND', env)?.trim() ?? 'libretranslate').toLowerCase();
  if (kind !== 'libretranslate' && kind !== 'openai') return null;
  let baseUrl = setting('SHORTS_TRANSLATE_URL', env)?.trim();
  let apiKey = setting('SHORTS_TRANSLATE_API_KEY', env)?.trim();
  let model = setting('SHORTS_TRANSLATE_MODEL', env)?.trim();
  if (!baseUrl && kind === 'openai') {
    baseUrl = setting('SHORTS_LLM_BASE_URL', env)?.trim();
    apiKey ||= setting('SHORTS_LLM_API_KEY', env)?.trim();
    model ||= setting('SHORTS_LLM_MODEL', env)?.trim();
  }
  if (!baseUrl || !isHttpUrl(baseUrl)) return null;
  if (kind === 'openai' && !model) return null;
  return {
    kind, baseUrl: baseUrl.replace(/\/+$/, ''),
    ...(apiKey ? { apiKey } : {}),
    ...(model ? { model } : {}),
  };
}

/** "en -> es": how errors and refusals name a pair. */
export function pairLabel(from: string, to: string): string {
  return `"${from}" -> "${to}"`;
}

/**
 * Whether the service translates `from` into `to`. LibreTranslate says so in GET /languages (each
 * source lists its `targets`; servers older than that field translate between any listed languages).
 * An OpenAI-compatible model is taken to handle every language of the spec. Throws when the service
 * cannot be asked (down, not LibreTranslate), which callers treat as "cannot translate".
 */
export async function supportsPair(cfg: TranslatorConfig, from: string, to: string, signal?: AbortSignal): Promise<boolean> {
  if (cfg.kind === 'openai') return isSpecLanguage(from) && isSpecLanguage(to);
  return (await resolveLibreCodes(cfg, from, to, signal)) !== null;
}

/**
 * Translates each text from `from` into `to`, in order: the result has exactly one string per input.
 * Throws TranslationError naming the pair on any failure or malformed answer.
 */
export async function translateTexts(cfg: TranslatorConfig, texts: string[], from: string, to: string, signal?: AbortSignal): Promise<string[]> {
  if (texts.length === 0) return [];
  const pair = pairLabel(from, to);
  try {
    let translate: (batch: string[]) => Promise<string[]>;
    if (cfg.kind === 'libretranslate') {
      const codes = await resolveLibreCodes(cfg, from, to, signal);
      if (!codes) throw new TranslationError(`the translation service at ${cfg.baseUrl} does not translate ${pair}`);
      translate = (batch) => libreTranslate(cfg, batch, codes.source, codes.target, signal);
    } else {
      translate = (batch) => chatTranslate(cfg, batch, from, to, signal);
    }
    const out: string[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH);
      const translated = await translate(batch);
      if (translated.length !== batch.length)
        throw new TranslationError(`the translation service returned ${translated.length} texts for ${batch.length} (${pair})`);
      out.push(...translated);
    }
    return out;
  } catch (err) {
    if (signal?.aborted) throw err;
    if (err instanceof TranslationError) throw err;
    throw new TranslationError(`translating captions ${pair} failed: ${describe(err)}`, { cause: err });
  }
}

/**
 * Cues of translated captions. Words of two languages do not align, so timing is kept per phrase:
 * each cue keeps its start and end, and its translated words all span the whole cue (no word is
 * "spoken" before another). Words are merged into at most `wordsPerCue` groups so the template's
 * line layout holds one page per cue; libass wraps a group that is still too wide.
 */
export function translatedCues(cues: CaptionCue[], translations: string[], wordsPerCue: number): CaptionCue[] {
  if (translations.length !== cues.length) throw new Error(`${translations.length} translations for ${cues.length} cues`);
  const per = Math.max(1, Math.floor(wordsPerCue));
  return cues.flatMap((cue, i) => {
    const words = translations[i]!.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
    if (words.length === 0) return [];
    const groups = Math.min(per, words.length);
    const text: string[] = [];
    // Balanced groups: the first (words % groups) get one word more.
    for (let g = 0, at = 0; g < groups; g++) {
      const n = Math.floor(words.length / groups) + (g < words.length % groups ? 1 : 0);
      text.push(words.slice(at, at + n).join(' '));
      at += n;
    }
    return [{ start: cue.start, end: cue.end, words: text.map((t) => ({ text: t, start: cue.start, end: cue.end, probability: 1 })), spoken: cue.words.map((w) => w.text) }];
  });
}

/** The phrase text of a cue, as sent for translation. */
export function cueText(cue: CaptionCue): string {
  return cue.words.map((w) => w.text).join(' ');
}

// --- LibreTranslate ---------------------------------------------------------------------------

interface LibreLanguage { code: string; name?: string; targets?: string[] }

/**
 * Spec codes LibreTranslate spells differently across versions (Chinese is zh-Hans in recent ones,
 * Norwegian Bokmål nb, Hebrew once iw): the first alternative the server lists is used.
 */
const LIBRE_ALIASES: Record<string, string[]> = { zh: ['zh', 'zh-Hans', 'zh-CN'], no: ['no', 'nb'], he: ['he', 'iw'], tl: ['tl', 'fil'] };

async function resolveLibreCodes(cfg: TranslatorConfig, from: string, to: string, signal?: AbortSignal): Promise<{ source: string; target: string } | null> {
  const body = await got.get(`${cfg.baseUrl}/languages`, {
    retry: { limit: 2 }, timeout: { request: GET_TIMEOUT_MS }, signal,
  }).json<unknown>();
  if (!Array.isArray(body)) throw new TranslationError(`${cfg.baseUrl}/languages did not return a language list`);
  const langs = (body as unknown[]).filter((l): l is LibreLanguage => typeof (l as LibreLanguage)?.code === 'string');
  const pick = (code: string) => (LIBRE_ALIASES[code] ?? [code]).map((c) => langs.find((l) => l.code === c)).find((l) => l !== undefined);
  const source = pick(from);
  if (!source) return null;
  const targetCodes = LIBRE_ALIASES[to] ?? [to];
  const target = Array.isArray(source.targets)
    ? targetCodes.find((c) => source.targets!.includes(c))
    : pick(to)?.code;
  return target && target !== source.code ? { source: source.code, target } : null;
}

async function libreTranslate(cfg: TranslatorConfig, q: string[], source: string, target: string, signal?: AbortSignal): Promise<string[]> {
  const res = await got.post(`${cfg.baseUrl}/translate`, {
    json: { q, source, target, format: 'text', ...(cfg.apiKey ? { api_key: cfg.apiKey } : {}) },
    retry: { limit: 0 }, timeout: { request: POST_TIMEOUT_MS }, signal, throwHttpErrors: false,
  });
  const body = parseJson(res.body);
  if (res.statusCode >= 400) {
    const why = typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : res.body.slice(0, 200);
    throw new TranslationError(`the translation service answered HTTP ${res.statusCode}: ${why}`);
  }
  const out = (body as { translatedText?: unknown })?.translatedText;
  if (!Array.isArray(out) || !out.every((t) => typeof t === 'string'))
    throw new TranslationError('the translation service answered without a translatedText list');
  return out as string[];
}

// --- OpenAI-compatible ------------------------------------------------------------------------


async function chatTranslate(cfg: TranslatorConfig, texts: string[], from: string, to: string, signal?: AbortSignal): Promise<string[]> {
  let content: string;
  try {
    content = await chatJson(cfg, [
      {
        role: 'system',
        content: `You translate video subtitles from ${languageLabel(from)} to ${languageLabel(to)}. Each input string is one `
          + 'spoken phrase: translate it on its own, naturally and briefly, keeping its meaning. Answer with JSON only.',
      },
      {
        role: 'user',
        content: `Phrases (a JSON array of ${texts.length} strings):\n${JSON.stringify(texts)}\n\n`
          + `Return {"translations":[...]} with exactly ${texts.length} strings, in the same order.`,
      },
    ], { temperature: 0, timeoutMs: POST_TIMEOUT_MS, signal });
  } catch (e) {
    if (e instanceof NoContentError) throw new TranslationError('the model answered without message content');
    throw e;
  }
  // A bare array is accepted as well as {"translations": [...]}.
  const parsed = parseJson(content);
  const list = Array.isArray(parsed) ? parsed : (parsed as { translations?: unknown })?.translations;
  if (!Array.isArray(list) || !list.every((t) => typeof t === 'string'))
    throw new TranslationError('the model did not answer with a list of translated strings');
  return list as string[];
}

// --- helpers ----------------------------------------------------------------------------------

function isSpecLanguage(code: string): boolean {
  return (LANGUAGES as readonly string[]).includes(code);
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  const e = err as { response?: { statusCode?: number }; code?: string; message?: string };
  if (e?.response?.statusCode) return `HTTP ${e.response.statusCode}`;
  return e?.code ?? e?.message ?? String(err);
}
