// An assembled 3-minute source from real recordings: phone-menu instructions recorded by a real
// speaker (Debian asterisk-core-sounds-en-wav, Allison, CC-BY-SA-3.0) with one short humorous story
// in the middle (Festival's SLT voice) answered by real recorded laughter (Debian hedgewars-data voice
// packs, GFDL-1.3). The user report of issue 10 in miniature: a long dry procedure and one moment
// worth a short. Every piece is levelled to the same loudness so only content and sound differ.
// Cached in test/.fixtures like the other generated media.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, speech } from './media.js';

const ALLISON = '/usr/share/asterisk/sounds/en_US_f_Allison';
const VOICES = '/usr/share/games/hedgewars/Data/Sounds/voices';
const RATE = 16000;

export const STORY_LINES = [
  'Last winter my neighbour told me his cat had learned to use the microwave.',
  'I laughed, but he swore it was true.',
  'So one night I went over to see for myself.',
  'The cat walked into the kitchen, looked right at me, and pressed the popcorn button with its paw.',
  // laughter here
  'Three minutes later it was sitting in front of the television, waiting for the movie to start.',
  'My neighbour just shrugged and said, he still can\'t work the remote.',
  // laughter here
];

const BEFORE = ['dir-intro', 'dir-instr', 'conf-getconfno', 'conf-getpin', 'conf-usermenu', 'agent-user', 'agent-pass',
  'queue-periodic-announce', 'queue-youarenext', 'vm-intro'];
const AFTER = ['vm-instructions', 'vm-options', 'vm-rec-name', 'vm-rec-busy', 'vm-rec-unv', 'vm-tempgreeting2', 'vm-opts',
  'vm-msginstruct', 'vm-saveoper', 'vm-forwardoptions', 'vm-reachoper', 'vm-helpexit'];

export interface DryTalk {
  wav: string;
  /** Where the story (its first word to the end of the last laugh) sits in the file, seconds. */
  story: { start: number; end: number };
  /** The two bursts of laughter, seconds. */
  laughs: { start: number; end: number }[];
}

/** Any input file to 16 kHz mono s16 PCM at -23 LUFS-ish (one-pass loudnorm is close enough here). */
function pcm(file: string, level = -23): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-af', `loudnorm=I=${level}:TP=-2:LRA=11,aresample=${RATE}`,
    '-ac', '1', '-ar', String(RATE), '-f', 's16le', '-'], { maxBuffer: 64 << 20 });
}

const silence = (sec: number) => Buffer.alloc(2 * Math.round(sec * RATE));

function wavHeader(bytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + bytes, 4); h.write('WAVE', 8); h.write('fmt ', 12);
  h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(RATE, 24);
  h.writeUInt32LE(RATE * 2, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write('data', 36); h.writeUInt32LE(bytes, 40);
  return h;
}

export function dryTalk(): DryTalk {
  mkdirSync(FIXTURES, { recursive: true });
  const key = createHash('sha1').update(JSON.stringify([STORY_LINES, BEFORE, AFTER, 2])).digest('hex').slice(0, 12);
  const wav = path.join(FIXTURES, `${key}-dry-talk.wav`);
  const meta = `${wav}.json`;
  if (existsSync(wav) && existsSync(meta)) return { wav, ...JSON.parse(readFileSync(meta, 'utf8')) as Omit<DryTalk, 'wav'> };

  const parts: Buffer[] = [];
  let bytes = 0;
  const add = (b: Buffer) => { parts.push(b); bytes += b.length; };
  const now = () => bytes / 2 / RATE;
  const prompts = (names: string[]) => names.forEach((n) => { add(pcm(path.join(ALLISON, `${n}.wav`))); add(silence(0.7)); });

  prompts(BEFORE);
  add(silence(0.5));
  const storyStart = now();
  const laughs: { start: number; end: number }[] = [];
  const laugh = (voices: string[]) => {
    add(silence(0.15));
    const start = now();
    for (const v of voices) add(pcm(path.join(VOICES, v, 'Laugh.ogg'), -21));
    laughs.push({ start, end: now() });
    add(silence(0.4));
  };
  add(pcm(speech(STORY_LINES.slice(0, 4).join(' '))));
  laugh(['Default', 'Surfer']);
  add(pcm(speech(STORY_LINES.slice(4).join(' '))));
  laugh(['HillBilly', 'Classic']);
  const storyEnd = now();
  add(silence(0.8));
  prompts(AFTER);

  const tmp = `${wav}.tmp`;
  writeFileSync(tmp, Buffer.concat([wavHeader(bytes), ...parts]));
  renameSync(tmp, wav);
  const info = { story: { start: storyStart, end: storyEnd }, laughs };
  writeFileSync(meta, JSON.stringify(info));
  rmSync(tmp, { force: true });
  return { wav, ...info };
}
