// The interactive `shorts create` flow: scripted answers (in place of a terminal) against a real local
// client, whose catalogs supply the choices and whose service validates the resulting request.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalClient } from '../src/client/local-client.js';
import { askForCreateOptions, type Prompter } from '../src/cli/prompts.js';
import { SAMPLE } from './helpers/cli.js';

let dir: string;
let client: LocalClient;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'prompts-'));
  client = new LocalClient(dir);
});
afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Answers by message prefix; records the choices each select offered. */
function scripted(answers: Record<string, unknown>): Prompter & { offered: Map<string, string[]> } {
  const offered = new Map<string, string[]>();
  const answer = (message: string, fallback?: unknown) => {
    const key = Object.keys(answers).find((k) => message.startsWith(k));
    return key === undefined ? fallback : answers[key];
  };
  return {
    offered,
    input: async (o) => answer(o.message, o.default ?? '') as string,
    number: async (o) => answer(o.message, o.default) as number | undefined,
    select: async (o) => {
      offered.set(o.message, o.choices.map((c) => c.name ?? c.value));
      return answer(o.message, o.default ?? o.choices[0]!.value) as never;
    },
    confirm: async (o) => answer(o.message, o.default ?? false) as boolean,
    checkbox: async (o) => answer(o.message, []) as never,
  };
}

describe('shorts create, interactive', () => {
  it('offers the catalogs and turns the answers into a request the service accepts', async () => {
    const { templates } = await client.templates();
    const neon = templates.find((t) => t.name === 'neon')!;
    const ask = scripted({
      'Video': SAMPLE, 'Start': 0, 'End': 80, 'Maximum': 2, 'Caption style': neon.templateId,
      'Extras': ['hookTitle', 'memeHook', 'music', 'ctaEnabled', 'outroEnabled'],
      'Meme intro': 'Plot Twist', 'Music loudness': 20, 'Call-to-action': 'Follow for part 2', 'Channel handle': ' @me ',
    });
    const body = await askForCreateOptions(client, ask);
    expect(body).toEqual({
      file: SAMPLE, start: 0, end: 80, preferredLength: 'under60sec', maxShorts: 2, layout: 'auto', captionsEnabled: true,
      templateId: neon.templateId, hookTitle: true, memeHook: true, memeHookName: 'Plot Twist', music: true, musicVolume: 20,
      ctaEnabled: true, ctaText: 'Follow for part 2', outroEnabled: true, outroHandle: '@me',
    });
    // Choices come from the catalogs; "Random" leaves the name out (the spec's default).
    expect(ask.offered.get('Caption style:')).toEqual(templates.map((t) => t.displayName));
    expect(ask.offered.get('Music track:')?.[0]).toBe('Random');
    expect(ask.offered.get('Meme intro:')).toContain('Plot Twist');
    const created = await client.create(body);
    expect(created.requestId).toMatch(/^[0-9a-f]{24}$/);
    expect((await client.get(created.requestId)).template).toBe('neon');
    await client.cancel(created.requestId);
  });

  it('locally, a file\'s range may be left empty: the whole recording, which the service accepts', async () => {
    const ask = scripted({ 'Video': SAMPLE, 'Start': undefined, 'End': undefined, 'Burn in captions': false });
    const body = await askForCreateOptions(client, ask, { wholeFile: true });
    expect(body).toEqual({ file: SAMPLE, preferredLength: 'under60sec', layout: 'auto', captionsEnabled: false });
    const created = await client.create(body);
    const detail = await client.get(created.requestId);
    expect([detail.start, Math.round(detail.end!)]).toEqual([0, 80]);
    await client.cancel(created.requestId);
    // A URL keeps the window questions of the spec (its source's length is not known before fetching).
    const url = await askForCreateOptions(client, scripted({ 'Video': 'https://cdn.example.com/talk.mp4', 'What kind': 'fileUrl' }), { wholeFile: true });
    expect(url).toMatchObject({ start: 0, end: 600 });
  });

  it('asks nothing about styles or extras that were not chosen', async () => {
    const ask = scripted({ 'Video': 'https://cdn.example.com/talk.mp4', 'What kind': 'fileUrl', 'Burn in captions': false });
    const body = await askForCreateOptions(client, ask);
    expect(body).toEqual({ fileUrl: 'https://cdn.example.com/talk.mp4', start: 0, end: 600, preferredLength: 'under60sec', layout: 'auto', captionsEnabled: false });
    expect([...ask.offered.keys()]).toEqual(['What kind of URL is it?', 'Preferred clip length:', 'Layout:']);
  });
});
