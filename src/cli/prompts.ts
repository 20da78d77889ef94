// `shorts create` with no arguments on a terminal: ask for the source and the main options.
import { input, number, select, confirm } from '@inquirer/prompts';
import { PREFERRED_LENGTHS, LAYOUTS } from '../service/create-options.js';

export async function askForCreateOptions(): Promise<Record<string, unknown>> {
  const source = await input({ message: 'Video (a file path, a video file URL, or a video page URL):', required: true });
  const body: Record<string, unknown> = {};
  if (/^https?:\/\//i.test(source)) {
    const kind = await select({ message: 'What kind of URL is it?', choices: [
      { name: 'A direct video file (.mp4, .webm ...)', value: 'fileUrl' },
      { name: 'A video page on a platform', value: 'url' },
    ] });
    body[kind] = source;
  } else {
    body.file = source;
  }
  body.start = await number({ message: 'Start (seconds):', default: 0, min: 0, required: true });
  body.end = await number({ message: 'End (seconds, 60-1200 after the start):', default: Number(body.start) + 600, min: 1, required: true });
  body.preferredLength = await select({ message: 'Preferred clip length:', default: 'under60sec', choices: PREFERRED_LENGTHS.map((v) => ({ value: v })) });
  const max = await number({ message: 'Maximum number of clips (1-12, empty = automatic):', min: 1, max: 12, required: false });
  if (max !== undefined) body.maxShorts = max;
  body.layout = await select({ message: 'Layout:', default: 'auto', choices: LAYOUTS.map((v) => ({ value: v })) });
  body.captionsEnabled = await confirm({ message: 'Burn in captions?', default: true });
  return body;
}
