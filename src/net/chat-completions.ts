// One call to an OpenAI-compatible /chat/completions endpoint in JSON mode, shared by the optional LLM
// re-ranker and the caption translator. POST is never retried: each call may cost the provider money,
// and both callers have a defined answer to a failure (keep the local result / refuse to translate).
import got from 'got';

export interface ChatEndpoint { baseUrl: string; apiKey?: string; model?: string }
export interface ChatMessage { role: 'system' | 'user'; content: string }

/** The first choice's message content, with a code fence some servers add in JSON mode removed. */
export async function chatJson(endpoint: ChatEndpoint, messages: ChatMessage[], opts: { temperature: number; timeoutMs: number; signal?: AbortSignal }): Promise<string> {
  const body = await got.post(`${endpoint.baseUrl}/chat/completions`, {
    json: { model: endpoint.model, messages, temperature: opts.temperature, response_format: { type: 'json_object' } },
    headers: endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
    retry: { limit: 0 },
    timeout: { request: opts.timeoutMs },
    signal: opts.signal,
  }).json<unknown>();
  const content = (body as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new NoContentError();
  return content.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
}

export class NoContentError extends Error {
  constructor() {
    super('no message content in the response');
    this.name = 'NoContentError';
  }
}
