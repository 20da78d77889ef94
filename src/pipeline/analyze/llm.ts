// Optional polish: when an OpenAI-compatible chat endpoint is configured, ask a model to re-rank the
// picks and rewrite titles and descriptions. Never required and never fatal: any failure or any
// answer that does not fit the expected shape leaves the local result exactly as it was.
import { chatJson, type ChatMessage } from '../../net/chat-completions.js';
import type { ClipCopy, Highlight } from '../../domain/highlight.js';
import { languageLabel } from '../../languages.js';
import { baseLanguage } from './stop-words.js';

export interface LlmConfig { baseUrl: string; apiKey?: string; model: string }

export interface LlmItem { highlight: Highlight; copy: ClipCopy; text: string }

/** Each item's transcript is cut to this many characters to bound the prompt size. */
const MAX_TEXT_CHARS = 2000;
const MAX_TITLE_CHARS = 70;
const MAX_DESCRIPTION_CHARS = 500;
const TIMEOUT_MS = 60_000;
/** The model's score counts as much as ours: it reads meaning, we measure delivery. */
const LLM_SCORE_SHARE = 0.5;

/** SHORTS_LLM_BASE_URL (e.g. http://127.0.0.1:11434/v1) and SHORTS_LLM_MODEL are both needed; the key is optional. */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const baseUrl = env.SHORTS_LLM_BASE_URL?.trim();
  const model = env.SHORTS_LLM_MODEL?.trim();
  if (!baseUrl || !model) return null;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  } catch {
    return null;
  }
  const apiKey = env.SHORTS_LLM_API_KEY?.trim();
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, ...(apiKey ? { apiKey } : {}) };
}

/**
 * `language` is the transcript's (ISO 639-1): the model is told to write titles and descriptions in it, so a
 * polish of Spanish clips does not come back in English.
 */
export async function refineWithLlm(cfg: LlmConfig, items: LlmItem[], signal?: AbortSignal, language = 'en'): Promise<{ highlight: Highlight; copy: ClipCopy }[]> {
  const unchanged = () => items.map(({ highlight, copy }) => ({ highlight, copy }));
  if (items.length === 0) return [];
  let content: string;
  try {
    content = await complete(cfg, buildMessages(items, language), signal);
  } catch (err) {
    // Cancellation is the caller's decision, not an LLM failure: let it through.
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : err;
    warn(`request failed (${describe(err)})`);
    return unchanged();
  }
  const answer = parseAnswer(content, items.length);
  if (typeof answer === 'string') {
    warn(answer);
    return unchanged();
  }
  return items
    .map((item, id) => {
      const a = answer.get(id)!;
      const viralScore = Math.round((1 - LLM_SCORE_SHARE) * item.highlight.viralScore + LLM_SCORE_SHARE * a.score);
      return { id, highlight: { ...item.highlight, viralScore }, copy: { ...item.copy, title: a.title, description: a.description } };
    })
    .sort((x, y) => y.highlight.viralScore - x.highlight.viralScore || x.id - y.id)
    .map(({ highlight, copy }) => ({ highlight, copy }));
}


export function buildMessages(items: LlmItem[], language = 'en'): ChatMessage[] {
  const clips = items.map((it, id) => ({
    id,
    duration_sec: Math.round(it.highlight.end - it.highlight.start),
    our_score: it.highlight.viralScore,
    strengths: it.highlight.strengths,
    // What we measured that the transcript cannot show: laughter, applause, when they come.
    what_we_found: it.copy.reason,
    title: it.copy.title,
    description: it.copy.description,
    transcript: it.text.length > MAX_TEXT_CHARS ? `${it.text.slice(0, MAX_TEXT_CHARS)}…` : it.text,
  }));
  return [
    {
      role: 'system',
      content: 'You edit short-form video clips (YouTube Shorts, TikTok, Reels). For each clip, judge how likely '
        + 'viewers are to watch it to the end and share it, and write a better title and description using only '
        + `what the transcript says. Write titles and descriptions in ${languageLabel(baseLanguage(language) || 'en')}, the language of the transcripts. `
        + 'Answer with JSON only.',
    },
    {
      role: 'user',
      content: 'Clips:\n' + JSON.stringify(clips) + '\n\n'
        + 'Return {"clips":[{"id":<id>,"score":<0-100 integer, how viral>,"title":"<hook-like title, at most 60 characters>",'
        + '"description":"<one-sentence summary followed by 3-5 hashtags>"}]} with every id exactly once.',
    },
  ];
}

function complete(cfg: LlmConfig, messages: ChatMessage[], signal?: AbortSignal): Promise<string> {
  // A failure simply means "keep the local result".
  return chatJson(cfg, messages, { temperature: 0.2, timeoutMs: TIMEOUT_MS, signal });
}

interface Answer { score: number; title: string; description: string }

/** A map id -> answer when the reply is complete and well-formed, else a reason string. */
export function parseAnswer(content: string, count: number): Map<number, Answer> | string {
  let parsed: unknown;
  try {
    // Some servers wrap JSON in a code fence even in JSON mode.
    parsed = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return 'answer is not JSON';
  }
  const clips = (parsed as { clips?: unknown })?.clips;
  if (!Array.isArray(clips)) return 'answer has no "clips" array';
  const out = new Map<number, Answer>();
  for (const c of clips as unknown[]) {
    const { id, score, title, description } = (c ?? {}) as Record<string, unknown>;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= count || out.has(id)) return 'answer has a bad or repeated id';
    if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100) return `answer has a bad score for clip ${id}`;
    if (typeof title !== 'string' || title.trim().length === 0 || title.trim().length > MAX_TITLE_CHARS) return `answer has a bad title for clip ${id}`;
    if (typeof description !== 'string' || description.trim().length === 0 || description.trim().length > MAX_DESCRIPTION_CHARS) return `answer has a bad description for clip ${id}`;
    out.set(id, { score, title: title.trim(), description: description.trim() });
  }
  if (out.size !== count) return `answer covers ${out.size} of ${count} clips`;
  return out;
}

function describe(err: unknown): string {
  const e = err as { response?: { statusCode?: number }; code?: string; message?: string };
  if (e?.response?.statusCode) return `HTTP ${e.response.statusCode}`;
  return e?.code ?? e?.message ?? String(err);
}

function warn(why: string): void {
  process.stderr.write(`shortwright: LLM refinement skipped, keeping local titles and ranking: ${why}\n`);
}
