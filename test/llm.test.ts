import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { llmConfigFromEnv, refineWithLlm, type LlmConfig, type LlmItem } from '../src/pipeline/analyze/llm.js';
import type { Highlight } from '../src/domain/highlight.js';

interface Seen { path: string; auth: string | undefined; body: { model: string; messages: { role: string; content: string }[]; response_format: unknown } }

let server: Server;
let cfg: LlmConfig;
let seen: Seen[] = [];
let reply: (res: ServerResponse) => void = () => {};

function chatAnswer(content: string) {
  return (res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
  };
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString(); });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(raw) as Seen['body'] });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cfg = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'sk-test', model: 'tiny-model' };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => { seen = []; });

function item(id: number, viralScore: number, title: string): LlmItem {
  const highlight: Highlight = {
    sentenceIndexes: [id], start: id * 30, end: id * 30 + 25, viralScore, strengths: ['hook'],
    features: {
      hook: 0.8, selfContained: 0.5, topic: 1, story: 0, questionAnswer: 0.7, contrast: 0, emotion: 0.2, reaction: 0, prosody: 0.5,
      heatmap: 0, lengthFit: 1, procedural: 0,
    },
    evidence: [{ kind: 'question', at: id * 30, text: 'Why?' }],
  };
  return { highlight, copy: { title, reason: 'Opens with a question.', description: `About ${title}. #shorts` }, text: `Transcript of clip ${id}.` };
}

const items = [item(0, 80, 'First Clip'), item(1, 60, 'Second Clip'), item(2, 40, 'Third Clip')];
const unchanged = items.map(({ highlight, copy }) => ({ highlight, copy }));

describe('refineWithLlm', () => {
  it('re-ranks and retitles from a good answer', async () => {
    reply = chatAnswer(JSON.stringify({ clips: [
      { id: 2, score: 100, title: 'Nobody Tells You This About Rent', description: 'Why rent sinks restaurants. #Rent #Restaurants #shorts' },
      { id: 0, score: 50, title: 'The Budget Trick', description: 'Spend on what you love. #Budget #Money #shorts' },
      { id: 1, score: 20, title: 'Kitchen Tour', description: 'Inside the kitchen. #Kitchen #Chef #shorts' },
    ] }));
    const out = await refineWithLlm(cfg, items);
    // Half our score, half the model's: clip 2 (40 -> 70) now leads clip 0 (80 -> 65).
    expect(out.map((o) => o.copy.title)).toEqual(['Nobody Tells You This About Rent', 'The Budget Trick', 'Kitchen Tour']);
    expect(out.map((o) => o.highlight.viralScore)).toEqual([70, 65, 40]);
    expect(out.map((o) => o.highlight.sentenceIndexes[0])).toEqual([2, 0, 1]);
    expect(out[0]!.copy.reason).toBe('Opens with a question.'); // our reason stays: it is derived from measured features
    expect(out[0]!.copy.description).toBe('Why rent sinks restaurants. #Rent #Restaurants #shorts');

    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/v1/chat/completions');
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(seen[0]!.body.model).toBe('tiny-model');
    expect(seen[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(seen[0]!.body.messages.at(-1)!.content).toContain('Transcript of clip 2.');
    expect(seen[0]!.body.messages[0]!.content).toContain('in English (en)');
  });

  it('asks for titles in the language of the transcript', async () => {
    reply = chatAnswer(JSON.stringify({ clips: [0, 1, 2].map((id) => ({ id, score: 50, title: `Título ${id}`, description: 'Resumen. #shorts' })) }));
    const out = await refineWithLlm(cfg, items, undefined, 'es');
    expect(seen[0]!.body.messages[0]!.content).toContain('in Spanish (es)');
    expect(out[0]!.copy.title).toMatch(/^Título/);
  });

  it.each([
    ['not JSON', chatAnswer('Sure! Here are better titles: ...')],
    ['a missing clip', chatAnswer(JSON.stringify({ clips: [{ id: 0, score: 90, title: 'A', description: 'b' }] }))],
    ['a repeated id', chatAnswer(JSON.stringify({ clips: [0, 0, 1].map((id) => ({ id, score: 50, title: 'T', description: 'D' })) }))],
    ['an out-of-range score', chatAnswer(JSON.stringify({ clips: [0, 1, 2].map((id) => ({ id, score: 500, title: 'T', description: 'D' })) }))],
    ['an overlong title', chatAnswer(JSON.stringify({ clips: [0, 1, 2].map((id) => ({ id, score: 50, title: 'T'.repeat(120), description: 'D' })) }))],
    ['no choices', (res: ServerResponse) => { res.setHeader('content-type', 'application/json'); res.end('{"error":"busy"}'); }],
    ['HTTP 500', (res: ServerResponse) => { res.statusCode = 500; res.end('internal error'); }],
  ])('returns the input unchanged on %s, asks only once, and warns', async (_why, handler) => {
    reply = handler;
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await refineWithLlm(cfg, items)).toEqual(unchanged);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/^shortwright: LLM refinement skipped.*\n$/);
    } finally {
      warn.mockRestore();
    }
    expect(seen).toHaveLength(1); // POST is never retried
  });

  it('returns the input unchanged when nothing listens', async () => {
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const dead = { ...cfg, baseUrl: 'http://127.0.0.1:9/v1' };
      expect(await refineWithLlm(dead, items)).toEqual(unchanged);
    } finally {
      warn.mockRestore();
    }
  });

  it('passes cancellation through instead of treating it as a failure', async () => {
    let pending: ServerResponse | undefined;
    reply = (res) => { pending = res; };
    const ac = new AbortController();
    const run = refineWithLlm(cfg, items, ac.signal);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    ac.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    pending?.destroy();
  });

  it('does not call the model for an empty list', async () => {
    expect(await refineWithLlm(cfg, [])).toEqual([]);
    expect(seen).toHaveLength(0);
  });
});

describe('llmConfigFromEnv', () => {
  it('needs a base URL and a model; the key is optional', () => {
    expect(llmConfigFromEnv({})).toBeNull();
    expect(llmConfigFromEnv({ SHORTS_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })).toBeNull();
    expect(llmConfigFromEnv({ SHORTS_LLM_BASE_URL: 'not a url', SHORTS_LLM_MODEL: 'm' })).toBeNull();
    expect(llmConfigFromEnv({ SHORTS_LLM_BASE_URL: 'http://127.0.0.1:11434/v1/', SHORTS_LLM_MODEL: 'llama3' }))
      .toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3' });
    expect(llmConfigFromEnv({ SHORTS_LLM_BASE_URL: 'https://api.example.com/v1', SHORTS_LLM_MODEL: 'gpt', SHORTS_LLM_API_KEY: 'sk-1' }))
      .toEqual({ baseUrl: 'https://api.example.com/v1', model: 'gpt', apiKey: 'sk-1' });
  });
});
