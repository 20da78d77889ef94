// Two sources in languages the highlight scorer was never tuned on, from real recordings, for
// test/scoring-languages.test.ts (their real Whisper transcripts are saved beside the highlights fixtures):
// - a French phone menu (Debian asterisk-core-sounds-fr-wav, June, a real recorded voice, CC-BY-SA-3.0)
//   with one lively passage in the middle (espeak-ng French: questions, numbers) answered by real
//   recorded laughter (Debian hedgewars-data voice packs, GFDL-1.3); every piece levelled alike;
// - a flat German paragraph (espeak-ng German) full of German words that are English words: "die",
//   "Sie", "will", "also".
// Cached in test/.fixtures like the other generated media.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './media.js';
import { pcm, silence, wavHeader } from './dry-talk.js';

const JUNE = '/usr/share/asterisk/sounds/fr_CA_f_June';
const VOICES = '/usr/share/games/hedgewars/Data/Sounds/voices';
const RATE = 16000;

export const LIVELY_FR = [
  'Vous savez combien de fois mon voisin a raté son train cette année?',
  'Quarante-deux fois!',
  'Et vous savez pourquoi?',
  'Il s\'endort dans le train du retour et se réveille au terminus, à 80 kilomètres de chez lui.',
  // laughter here
];
const MENU_BEFORE = ['dir-intro', 'dir-instr', 'conf-getconfno', 'conf-getpin', 'conf-usermenu', 'agent-user', 'agent-pass', 'vm-intro'];
const MENU_AFTER = ['vm-instructions', 'vm-options', 'vm-rec-name', 'vm-rec-busy', 'vm-rec-unv', 'vm-tempgreeting2', 'vm-msginstruct', 'vm-saveoper', 'vm-helpexit'];

export const FLAT_DE = 'Die Sitzung beginnt morgen um neun Uhr im zweiten Stock. Sie will also die Unterlagen vorher lesen. '
  + 'Die Tür bleibt offen, und die Kaffeemaschine steht in der Küche. Also bringen Sie bitte die Listen mit, die wir letzte Woche verteilt haben. '
  + 'Die Pause ist um elf Uhr, und die Sitzung endet am Mittag.';

export interface ForeignTalk {
  wav: string;
  /** Where the lively passage (its first word to the end of the laughter) sits, seconds; null for the flat paragraph. */
  lively: { start: number; end: number } | null;
  laughs: { start: number; end: number }[];
}

function espeak(voice: string, text: string): Buffer {
  const wav = path.join(FIXTURES, `espeak-${process.pid}-${createHash('sha1').update(voice + text).digest('hex').slice(0, 8)}.wav`);
  execFileSync('espeak-ng', ['-v', voice, '-s', '150', '-w', wav, text], { stdio: 'ignore' });
  try {
    return pcm(wav);
  } finally {
    rmSync(wav, { force: true });
  }
}

function wavFile(parts: Buffer[]): Buffer {
  return Buffer.concat([wavHeader(parts.reduce((a, b) => a + b.length, 0)), ...parts]);
}

function cached(name: string, key: unknown, build: () => { parts: Buffer[]; info: Omit<ForeignTalk, 'wav'> }): ForeignTalk {
  mkdirSync(FIXTURES, { recursive: true });
  const wav = path.join(FIXTURES, `${createHash('sha1').update(JSON.stringify(key)).digest('hex').slice(0, 12)}-${name}.wav`);
  const meta = `${wav}.json`;
  if (existsSync(wav) && existsSync(meta)) return { wav, ...JSON.parse(readFileSync(meta, 'utf8')) as Omit<ForeignTalk, 'wav'> };
  const { parts, info } = build();
  // Parallel test workers may build it at once: private names, then atomic renames (the times first).
  writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify(info));
  renameSync(`${meta}.${process.pid}.tmp`, meta);
  writeFileSync(`${wav}.${process.pid}.tmp`, wavFile(parts));
  renameSync(`${wav}.${process.pid}.tmp`, wav);
  return { wav, ...info };
}

/** About 100 s: French menu prompts around one lively passage and its laughter. */
export function frenchMenuTalk(): ForeignTalk {
  return cached('french-menu-talk', [LIVELY_FR, MENU_BEFORE, MENU_AFTER, 1], () => {
    const parts: Buffer[] = [];
    let bytes = 0;
    const add = (b: Buffer) => { parts.push(b); bytes += b.length; };
    const now = () => bytes / 2 / RATE;
    const prompts = (names: string[]) => names.forEach((n) => { add(pcm(path.join(JUNE, `${n}.wav`))); add(silence(0.7)); });
    prompts(MENU_BEFORE);
    add(silence(0.5));
    const start = now();
    LIVELY_FR.forEach((line) => { add(espeak('fr', line)); add(silence(0.35)); });
    add(silence(0.15));
    const laughStart = now();
    for (const v of ['Default', 'Surfer', 'Classic']) add(pcm(path.join(VOICES, v, 'Laugh.ogg'), -22));
    const laughs = [{ start: laughStart, end: now() }];
    add(silence(0.8));
    const end = now();
    prompts(MENU_AFTER);
    return { parts, info: { lively: { start, end }, laughs } };
  });
}

/** About 25 s of flat German read by espeak-ng. */
export function flatGermanTalk(): ForeignTalk {
  return cached('flat-german-talk', [FLAT_DE, 1], () => ({ parts: [silence(0.5), espeak('de', FLAT_DE), silence(0.5)], info: { lively: null, laughs: [] } }));
}
