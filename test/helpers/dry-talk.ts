// An assembled 3-minute source from real recordings: phone-menu instructions recorded by a real
// speaker (Debian asterisk-core-sounds-en-wav, Allison, CC-BY-SA-3.0) with one short humorous story
// in the middle (Festival's SLT voice) answered by real recorded laughter (Debian hedgewars-data voice
// packs, GFDL-1.3). The user report of issue 10 in miniature: a long dry procedure and one moment
// worth a short. Every piece is levelled to the same loudness so only content and sound differ.
// Cached in test/.fixtures like the other generated media.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './media.js';

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

/**
 * Any input file to 16 kHz mono s16 PCM, its speaking level set to `level` dBFS RMS (measured over the
 * 20 ms frames louder than -50 dBFS, so pauses do not count). A gain in JS: ffmpeg's loudnorm resamples
 * to 192 kHz and made building this source take a minute on a loaded machine.
 */
export function pcm(file: string, level = -24): Buffer {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-ac', '1', '-ar', String(RATE), '-f', 's16le', '-'], { maxBuffer: 64 << 20 });
  const x = new Int16Array(raw.buffer, raw.byteOffset, raw.length >> 1);
  const frame = RATE / 50;
  let sum = 0, n = 0;
  for (let at = 0; at + frame <= x.length; at += frame) {
    let e = 0;
    for (let i = at; i < at + frame; i++) e += (x[i]! / 32768) ** 2;
    if (10 * Math.log10(e / frame + 1e-12) > -50) { sum += e; n += frame; }
  }
  const gain = n > 0 ? 10 ** ((level - 10 * Math.log10(sum / n)) / 20) : 1;
  const out = Buffer.alloc(raw.length);
  for (let i = 0; i < x.length; i++) out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x[i]! * gain))), 2 * i);
  return out;
}

/** Festival's SLT voice into a private temp file (parallel test workers may build this at once). */
function speech(text: string): string {
  const base = path.join(FIXTURES, `dry-talk-${process.pid}-${createHash('sha1').update(text).digest('hex').slice(0, 8)}`);
  writeFileSync(`${base}.txt`, text);
  execFileSync('text2wave', ['-eval', '(voice_cmu_us_slt_arctic_hts)', `${base}.txt`, '-o', `${base}.wav`], { stdio: 'ignore' });
  return `${base}.wav`;
}

/** Digital silence, 16 kHz mono s16. */
export const silence = (sec: number) => Buffer.alloc(2 * Math.round(sec * RATE));

/** The 44-byte header of a 16 kHz mono s16 WAV holding `bytes` of samples. */
export function wavHeader(bytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + bytes, 4); h.write('WAVE', 8); h.write('fmt ', 12);
  h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(RATE, 24);
  h.writeUInt32LE(RATE * 2, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write('data', 36); h.writeUInt32LE(bytes, 40);
  return h;
}

export function dryTalk(): DryTalk {
  mkdirSync(FIXTURES, { recursive: true });
  const key = createHash('sha1').update(JSON.stringify([STORY_LINES, BEFORE, AFTER, 4])).digest('hex').slice(0, 12);
  const wav = path.join(FIXTURES, `${key}-dry-talk.wav`);
  const meta = `${wav}.json`;
  const cached = (): DryTalk | null => (existsSync(wav) && existsSync(meta) ? { wav, ...JSON.parse(readFileSync(meta, 'utf8')) as Omit<DryTalk, 'wav'> } : null);
  const ready = cached();
  if (ready) return ready;
  // Two test workers may want it at once: one builds, the other waits for the finished files.
  const lock = `${wav}.lock`;
  try {
    closeSync(openSync(lock, 'wx'));
  } catch {
    const started = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    while (Date.now() - started < 180_000) {
      const done = cached();
      if (done) return done;
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    return build(wav, meta);
  } finally {
    rmSync(lock, { force: true });
  }
}

function build(wav: string, meta: string): DryTalk {

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
    for (const v of voices) add(pcm(path.join(VOICES, v, 'Laugh.ogg'), -22));
    laughs.push({ start, end: now() });
    add(silence(0.4));
  };
  const spoken = [speech(STORY_LINES.slice(0, 4).join(' ')), speech(STORY_LINES.slice(4).join(' '))];
  add(pcm(spoken[0]!));
  laugh(['Default', 'Surfer']);
  add(pcm(spoken[1]!));
  laugh(['HillBilly', 'Classic']);
  const storyEnd = now();
  add(silence(0.8));
  prompts(AFTER);

  // Test files run in parallel workers and may build this at the same moment: private temp names,
  // then atomic renames (the times first, so a finished WAV always has them).
  const info = { story: { start: storyStart, end: storyEnd }, laughs };
  const tmpMeta = `${meta}.${process.pid}.tmp`;
  writeFileSync(tmpMeta, JSON.stringify(info));
  renameSync(tmpMeta, meta);
  const tmp = `${wav}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([wavHeader(bytes), ...parts]));
  renameSync(tmp, wav);
  for (const f of spoken) {
    rmSync(f, { force: true });
    rmSync(f.replace(/\.wav$/, '.txt'), { force: true });
  }
  return { wav, ...info };
}
