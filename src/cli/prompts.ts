// `shorts create` with no arguments on a terminal: ask for the source, the main options and the
// rendering extras. Choices come from the client's catalogs (local files or the remote instance), so
// what is offered is exactly what the engine accepts.
import { checkbox, confirm, input, number, select } from '@inquirer/prompts';
import type { CatalogPage, ShortsClient } from '../client/shorts-client.js';
import { PREFERRED_LENGTHS, LAYOUTS } from '../api/create-options.js';

/** The prompt functions used; injectable so the flow is testable without a terminal. */
export interface Prompter {
  input: (o: { message: string; required?: boolean; default?: string; validate?: (v: string) => boolean | string }) => Promise<string>;
  number: (o: { message: string; default?: number; min?: number; max?: number; required?: boolean }) => Promise<number | undefined>;
  select: <T extends string>(o: { message: string; default?: T; choices: { name?: string; value: T }[] }) => Promise<T>;
  confirm: (o: { message: string; default?: boolean }) => Promise<boolean>;
  checkbox: <T extends string>(o: { message: string; choices: { name: string; value: T }[] }) => Promise<T[]>;
}

const TERMINAL: Prompter = { input, number, select, confirm, checkbox } as Prompter;

type Catalogs = Pick<ShortsClient, 'templates' | 'music' | 'memeHooks' | 'gameVideos'>;

const EXTRAS = [
  { value: 'hookTitle', name: 'Hook title over the first seconds' },
  { value: 'memeHook', name: 'Meme intro before each clip' },
  { value: 'gameVideo', name: 'Split screen with gameplay below' },
  { value: 'music', name: 'Background music' },
  { value: 'ctaEnabled', name: 'Call-to-action banner at the end' },
  { value: 'outroEnabled', name: 'End-screen outro' },
] as const;
type Extra = (typeof EXTRAS)[number]['value'];

/** Sentinel of the "random" choice; never sent (an omitted name means random in the spec). */
const RANDOM = '\u0000random';

/**
 * `wholeFile`: the engine here takes a file without a range as the whole recording (local mode, issue 15),
 * so the range questions may be left empty; a remote instance keeps the spec's 60-1200 s window rule.
 */
export async function askForCreateOptions(catalogs: Catalogs, ask: Prompter = TERMINAL, opts: { wholeFile?: boolean } = {}): Promise<Record<string, unknown>> {
  const source = await ask.input({ message: 'Video (a file path, a video file URL, or a video page URL):', required: true });
  const body: Record<string, unknown> = {};
  if (/^https?:\/\//i.test(source)) {
    const kind = await ask.select({ message: 'What kind of URL is it?', choices: [
      { name: 'A direct video file (.mp4, .webm ...)', value: 'fileUrl' as const },
      { name: 'A video page on a platform', value: 'url' as const },
    ] });
    body[kind] = source;
  } else {
    body.file = source;
  }
  if (opts.wholeFile && body.file !== undefined) {
    const start = await ask.number({ message: 'Start (seconds, empty = the beginning):', min: 0, required: false });
    const end = await ask.number({ message: 'End (seconds, empty = the end of the video):', min: 1, required: false });
    if (start !== undefined) body.start = start;
    if (end !== undefined) body.end = end;
  } else {
    body.start = await ask.number({ message: 'Start (seconds):', default: 0, min: 0, required: true });
    body.end = await ask.number({ message: 'End (seconds, 60-1200 after the start):', default: Number(body.start) + 600, min: 1, required: true });
  }
  body.preferredLength = await ask.select({ message: 'Preferred clip length:', default: 'under60sec', choices: PREFERRED_LENGTHS.map((v) => ({ value: v })) });
  const max = await ask.number({ message: 'Maximum number of clips (1-12, empty = automatic):', min: 1, max: 12, required: false });
  if (max !== undefined) body.maxShorts = max;
  body.layout = await ask.select({ message: 'Layout:', default: 'auto', choices: LAYOUTS.map((v) => ({ value: v })) });
  body.captionsEnabled = await ask.confirm({ message: 'Burn in captions?', default: true });
  if (body.captionsEnabled) {
    const { templates, defaultTemplateId } = await catalogs.templates();
    body.templateId = await ask.select({ message: 'Caption style:', default: defaultTemplateId,
      choices: templates.map((t) => ({ name: t.displayName, value: t.templateId })) });
  }

  const extras = new Set<Extra>(await ask.checkbox({ message: 'Extras (space to toggle, enter to go on):', choices: EXTRAS.map((e) => ({ ...e })) }));
  for (const e of EXTRAS) if (extras.has(e.value)) body[e.value] = true;
  if (extras.has('memeHook')) await pickName(ask, 'Meme intro:', await catalogs.memeHooks({ limit: '100' }), body, 'memeHookName');
  if (extras.has('gameVideo')) await pickName(ask, 'Gameplay:', await catalogs.gameVideos({ limit: '100' }), body, 'gameVideoName');
  if (extras.has('music')) {
    await pickName(ask, 'Music track:', await catalogs.music({ limit: '100' }), body, 'musicName');
    body.musicVolume = await ask.number({ message: 'Music loudness relative to the voice (0-100):', default: 10, min: 0, max: 100, required: true });
  }
  if (extras.has('ctaEnabled')) {
    body.ctaText = await ask.input({ message: 'Call-to-action text:', required: true, validate: (v) => v.length <= 200 || 'at most 200 characters' });
  }
  if (extras.has('outroEnabled')) {
    const handle = await ask.input({ message: 'Channel handle on the end card (empty = none):', default: '' });
    if (handle.trim()) body.outroHandle = handle.trim();
  }
  return body;
}

/** A catalog item by its exact name, or "random" (the name is then left out, as the spec's default). */
async function pickName(ask: Prompter, message: string, page: CatalogPage<{ name: string }>, body: Record<string, unknown>, field: string): Promise<void> {
  const name = await ask.select({ message, default: RANDOM, choices: [{ name: 'Random', value: RANDOM }, ...page.items.map((i) => ({ name: i.name, value: i.name }))] });
  if (name !== RANDOM) body[field] = name;
}
