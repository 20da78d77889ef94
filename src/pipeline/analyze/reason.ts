// The clip's `reason`: what is in THIS clip, named from the evidence the scorer found (highlight-
// features.ts) — the question it opens with, the story and its time marker, the laughter and when it
// comes, the line it ends on — quoted from the clip's own words, with clip-relative times. Two clips
// never share a sentence, so their quotes and times, and with them their reasons, differ.
// It is written in the request's language where a phrasebook exists (English, Spanish, French, German,
// Italian, Portuguese) and in English otherwise. Only English names what English word lists found (the
// kind of opening line, the contrast word, the charged words): in any other language those lists say
// nothing about the text, so the reason names the finding and its time without them.
import { hookSignals } from './highlight-features.js';
import { baseLanguage, isEnglish } from './stop-words.js';
import type { Evidence, Highlight } from '../../domain/highlight.js';
import type { ResolvedLayout } from '../../domain/layout.js';
import type { Sentence } from '../../domain/transcript.js';

/** Quotes longer than this are cut at a word boundary. */
const QUOTE_MAX_CHARS = 70;
/** At most this many clauses: a reason is one sentence a creator reads at a glance. */
const MAX_PARTS = 4;

export function writeReason(h: Highlight, clip: readonly Sentence[], language = 'en'): string {
  const english = isEnglish(language);
  const book = PHRASEBOOKS[baseLanguage(language)] ?? ENGLISH;
  const q = (text: string | undefined, max?: number): string => quote(text, book, max);
  const at = (e: Evidence) => clock(Math.max(0, e.at - h.start));
  const ev = h.evidence ?? [];
  const find = (kind: Evidence['kind']) => ev.find((e) => e.kind === kind);
  const parts: string[] = [];
  const first = clip[0];
  /** How the reason opens: it decides which findings are worth a clause after it. */
  let opening: 'instructions' | 'question' | 'line' | null = null;

  const question = find('question');
  const procedure = find('procedure');
  if (procedure && h.features.procedural >= 0.5) {
    // Say plainly why a list of instructions scores low, quoting one.
    parts.push(book.instructions(procedure.detail ?? null, q(procedure.text)));
    opening = 'instructions';
  } else if (question && first && question.at - first.start < 3) {
    parts.push(book.opensWithQuestion(q(question.text)));
    opening = 'question';
  } else if (first && h.features.hook >= 0.4) {
    parts.push(book.opensWith(english ? openingKind(first.sentence) : '', q(first.sentence)));
    opening = 'line';
  }
  const story = find('story');
  if (story) parts.push(book.story(q(story.text, 48)));
  if (question && opening !== 'question') parts.push(book.asks(q(question.text), at(question)));
  const answer = find('answer');
  if (question && answer && !story) parts.push(book.answers(q(answer.text)));

  const reactions = ev.filter((e) => e.kind === 'laughter' || e.kind === 'applause' || e.kind === 'scream' || e.kind === 'burst');
  if (reactions.length > 0) parts.push(reactionPhrase(reactions, at, book));

  const contrast = find('contrast');
  if (contrast && parts.length < MAX_PARTS - 1) parts.push(book.turns(english ? q(contrast.detail ?? '') : null, at(contrast)));
  const number = find('number');
  const opensWithLine = opening === 'question' || opening === 'line';
  if (number && !question && parts.length < MAX_PARTS - 1 && !opensWithLine) parts.push(book.number(q(number.text)));
  const pitch = find('pitch');
  if (pitch && parts.length < MAX_PARTS - 1) parts.push(book.pitch(at(pitch), pitch.detail ?? ''));
  const emotion = find('emotion');
  if (emotion && parts.length < MAX_PARTS - 1) parts.push(book.emotion(english ? emotion.detail ?? '' : null));
  if (find('heatmap') && parts.length < MAX_PARTS - 1) parts.push(book.heatmap);

  const punchline = find('punchline');
  // Only minor findings (a "but", a number, a lively voice) on a weak clip: say it has no strong point.
  const minorOnly = !story && !question && reactions.length === 0 && !opensWithLine && opening !== 'instructions';
  if (minorOnly && parts.length > 0 && !punchline && h.viralScore < 50) parts.push(book.noStrong);
  let endsAt = -1;
  if (punchline) {
    const laughAfter = reactions.some((r) => r.at >= punchline.at);
    endsAt = parts.length;
    parts.push(book.endsOn(laughAfter && reactions.some((r) => r.kind === 'laughter'), q(punchline.text)));
  } else if (parts.length === 0 && clip.length > 0) {
    // Nothing stood out: say what the clip is, so the creator can judge it, rather than praise it.
    parts.push(book.steady(q(first!.sentence), q(clip[clip.length - 1]!.sentence)));
  }

  const chosen = parts.slice(0, MAX_PARTS);
  if (endsAt >= MAX_PARTS) chosen[MAX_PARTS - 1] = parts[endsAt]!;
  const text = chosen.join('; ');
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : book.fallback;
}

/**
 * What the clip's layout shows, as one short sentence in the reason's language (issue 13: a creator sees
 * why a clip is stacked in two halves or shows a screen above a face). Only `split` and `screen` need
 * saying; fill, fit and square are what every clip looks like, so they add nothing (null).
 */
export function layoutReason(layout: ResolvedLayout, language = 'en'): string | null {
  const book = PHRASEBOOKS[baseLanguage(language)] ?? ENGLISH;
  return layout === 'split' ? book.split : layout === 'screen' ? book.screen : null;
}

/**
 * The reason with its layout's sentence after it. The reason is written before the clip is framed (the
 * layout is decided per clip at render), so the render stage completes it once the reframe plan exists.
 * Idempotent: a resumed render that appends again leaves one copy.
 */
export function withLayoutReason(reason: string, layout: ResolvedLayout, language = 'en'): string {
  const clause = layoutReason(layout, language);
  if (!clause) return reason;
  const sentence = `${clause}.`;
  if (reason.endsWith(sentence)) return reason;
  const base = reason.trimEnd();
  return base ? `${base}${/[.!?…]$/u.test(base) ? '' : '.'} ${sentence}` : sentence;
}

/** What kind of opening line it is, from the same signals the hook score counted (English word lists). */
function openingKind(sentence: string): string {
  const s = hookSignals(sentence);
  if (s.surprise) return 'a bold claim, ';
  if (s.contrast) return 'a contrast, ';
  if (s.number) return 'a number, ';
  if (s.address) return 'a line to the viewer, ';
  return '';
}

function reactionPhrase(events: Evidence[], at: (e: Evidence) => string, book: Phrasebook): string {
  const byKind = new Map<string, Evidence[]>();
  for (const e of events) byKind.set(e.kind, [...(byKind.get(e.kind) ?? []), e]);
  const phrases = [...byKind.entries()].map(([kind, es]) => book.reaction(kind as ReactionKind, es.slice(0, 3).map(at)));
  return phrases.join(', ');
}

type ReactionKind = 'laughter' | 'applause' | 'scream' | 'burst';

/**
 * The clauses of a reason in one language. Each takes the quotes already made (in the language's
 * quotation marks) and clip times as "m:ss"; `null` where English names a word-list finding that the
 * other languages leave out.
 */
interface Phrasebook {
  quotes: [string, string];
  /** `lines` is the scorer's "3 of 5"; null or another shape gives the clause without the count. */
  instructions(lines: string | null, quoted: string): string;
  opensWithQuestion(quoted: string): string;
  /** `kind` is English's "a bold claim, " and the like, empty elsewhere. */
  opensWith(kind: string, quoted: string): string;
  story(quoted: string): string;
  asks(quoted: string, time: string): string;
  answers(quoted: string): string;
  reaction(kind: ReactionKind, times: string[]): string;
  turns(quotedWord: string | null, time: string): string;
  number(quoted: string): string;
  /** `detail` is the scorer's "9 semitones". */
  pitch(time: string, detail: string): string;
  emotion(words: string | null): string;
  heatmap: string;
  noStrong: string;
  endsOn(punchline: boolean, quoted: string): string;
  steady(from: string, to: string): string;
  fallback: string;
  /** The layout sentences (no final full stop): two people stacked in halves, a screen above a face. */
  split: string;
  screen: string;
}

/** "3 of 5" -> [3, 5]. */
function lineCount(lines: string | null): [string, string] | null {
  const m = /^(\d+) of (\d+)$/.exec(lines ?? '');
  return m ? [m[1]!, m[2]!] : null;
}

/** "9 semitones" -> "9". */
function semitones(detail: string): string | null {
  return /^(\d+(?:\.\d+)?) semitones?$/.exec(detail)?.[1] ?? null;
}

const ENGLISH: Phrasebook = {
  quotes: ['"', '"'],
  instructions: (lines, quoted) => `Instructions read out (${lines ?? 'most'} lines), such as ${quoted}`,
  opensWithQuestion: (quoted) => `Opens with a question, ${quoted}`,
  opensWith: (kind, quoted) => `Opens with ${kind}${quoted}`,
  story: (quoted) => `tells a first-hand story, ${quoted}`,
  asks: (quoted, time) => `asks ${quoted} at ${time}`,
  answers: (quoted) => `answers it with ${quoted}`,
  reaction: (kind, times) => `${{ laughter: 'laughter', applause: 'applause', scream: 'a scream', burst: 'a burst of sound' }[kind]} at ${times.join(' and ')}`,
  turns: (word, time) => (word ? `turns on ${word} at ${time}` : `changes course at ${time}`),
  number: (quoted) => `gives a number up front, ${quoted}`,
  pitch: (time, detail) => `the voice moves most at ${time}${detail ? ` (${detail})` : ''}`,
  emotion: (words) => (words ? `charged words (${words})` : 'emotionally charged words'),
  heatmap: 'one of the most replayed stretches of the video',
  noStrong: 'no strong hook or reaction',
  endsOn: (punchline, quoted) => `ends on ${punchline ? 'the punchline ' : ''}${quoted}`,
  steady: (from, to) => `A steady passage from ${from} to ${to}, with no strong hook or reaction`,
  fallback: 'A passage that fits the requested length.',
  split: 'Two people: split screen, one per half',
  screen: 'Screen recording: screen above, speaker below',
};

const SPANISH: Phrasebook = {
  quotes: ['«', '»'],
  instructions: (lines, quoted) => {
    const n = lineCount(lines);
    return `Instrucciones leídas en voz alta${n ? ` (${n[0]} de ${n[1]} frases)` : ''}, por ejemplo ${quoted}`;
  },
  opensWithQuestion: (quoted) => `Empieza con una pregunta, ${quoted}`,
  opensWith: (_kind, quoted) => `Empieza con ${quoted}`,
  story: (quoted) => `cuenta una historia en primera persona, ${quoted}`,
  asks: (quoted, time) => `pregunta ${quoted} en ${time}`,
  answers: (quoted) => `responde con ${quoted}`,
  reaction: (kind, times) => `${{ laughter: 'risas', applause: 'aplausos', scream: 'un grito', burst: 'un estallido de sonido' }[kind]} en ${times.join(' y ')}`,
  turns: (_word, time) => `da un giro en ${time}`,
  number: (quoted) => `da una cifra de entrada, ${quoted}`,
  pitch: (time, detail) => {
    const st = semitones(detail);
    return `la voz varía más en ${time}${st ? ` (${st} semitonos)` : ''}`;
  },
  emotion: () => 'palabras con carga emocional',
  heatmap: 'uno de los tramos más vistos del vídeo',
  noStrong: 'sin un gancho ni una reacción fuertes',
  endsOn: (punchline, quoted) => `termina con ${punchline ? 'el remate ' : ''}${quoted}`,
  steady: (from, to) => `Un pasaje sin sobresaltos, de ${from} a ${to}, sin un gancho ni una reacción fuertes`,
  fallback: 'Un pasaje que se ajusta a la duración pedida.',
  split: 'Dos personas: pantalla dividida, una en cada mitad',
  screen: 'Grabación de pantalla: la pantalla arriba, quien habla abajo',
};

const FRENCH: Phrasebook = {
  quotes: ['«\u00a0', '\u00a0»'],
  instructions: (lines, quoted) => {
    const n = lineCount(lines);
    return `Consignes lues à voix haute${n ? ` (${n[0]} phrases sur ${n[1]})` : ''}, par exemple ${quoted}`;
  },
  opensWithQuestion: (quoted) => `Commence par une question, ${quoted}`,
  opensWith: (_kind, quoted) => `Commence par ${quoted}`,
  story: (quoted) => `raconte une histoire vécue, ${quoted}`,
  asks: (quoted, time) => `demande ${quoted} à ${time}`,
  answers: (quoted) => `y répond par ${quoted}`,
  reaction: (kind, times) => `${{ laughter: 'des rires', applause: 'des applaudissements', scream: 'un cri', burst: 'un éclat sonore' }[kind]} à ${times.join(' et ')}`,
  turns: (_word, time) => `prend un tournant à ${time}`,
  number: (quoted) => `donne un chiffre d'entrée, ${quoted}`,
  pitch: (time, detail) => {
    const st = semitones(detail);
    return `la voix varie le plus à ${time}${st ? ` (${st} demi-tons)` : ''}`;
  },
  emotion: () => "des mots chargés d'émotion",
  heatmap: "l'un des passages les plus revus de la vidéo",
  noStrong: 'sans accroche ni réaction marquée',
  endsOn: (punchline, quoted) => `se termine sur ${punchline ? 'la chute ' : ''}${quoted}`,
  steady: (from, to) => `Un passage égal, de ${from} à ${to}, sans accroche ni réaction marquée`,
  fallback: 'Un passage de la durée demandée.',
  split: 'Deux personnes\u00a0: écran partagé, une par moitié',
  screen: "Enregistrement d'écran\u00a0: l'écran en haut, la personne qui parle en bas",
};

const GERMAN: Phrasebook = {
  quotes: ['„', '“'],
  instructions: (lines, quoted) => {
    const n = lineCount(lines);
    return `Vorgelesene Anweisungen${n ? ` (${n[0]} von ${n[1]} Sätzen)` : ''}, etwa ${quoted}`;
  },
  opensWithQuestion: (quoted) => `Beginnt mit einer Frage, ${quoted}`,
  opensWith: (_kind, quoted) => `Beginnt mit ${quoted}`,
  story: (quoted) => `erzählt eine selbst erlebte Geschichte, ${quoted}`,
  asks: (quoted, time) => `fragt bei ${time} ${quoted}`,
  answers: (quoted) => `antwortet mit ${quoted}`,
  reaction: (kind, times) => `${{ laughter: 'Lachen', applause: 'Applaus', scream: 'ein Schrei', burst: 'ein lautes Geräusch' }[kind]} bei ${times.join(' und ')}`,
  turns: (_word, time) => `nimmt bei ${time} eine Wendung`,
  number: (quoted) => `nennt gleich zu Beginn eine Zahl, ${quoted}`,
  pitch: (time, detail) => {
    const st = semitones(detail);
    return `die Stimme bewegt sich am stärksten bei ${time}${st ? ` (${st} Halbtöne)` : ''}`;
  },
  emotion: () => 'emotional aufgeladene Wörter',
  heatmap: 'eine der am häufigsten wiederholten Stellen des Videos',
  noStrong: 'ohne starken Aufhänger oder Reaktion',
  endsOn: (punchline, quoted) => `endet mit ${punchline ? 'der Pointe ' : ''}${quoted}`,
  steady: (from, to) => `Eine gleichmäßige Passage von ${from} bis ${to}, ohne starken Aufhänger oder Reaktion`,
  fallback: 'Eine Passage in der gewünschten Länge.',
  split: 'Zwei Personen: geteiltes Bild, eine pro Hälfte',
  screen: 'Bildschirmaufnahme: Bildschirm oben, Sprecher unten',
};

const ITALIAN: Phrasebook = {
  quotes: ['«', '»'],
  instructions: (lines, quoted) => {
    const n = lineCount(lines);
    return `Istruzioni lette ad alta voce${n ? ` (${n[0]} frasi su ${n[1]})` : ''}, per esempio ${quoted}`;
  },
  opensWithQuestion: (quoted) => `Si apre con una domanda, ${quoted}`,
  opensWith: (_kind, quoted) => `Si apre con ${quoted}`,
  story: (quoted) => `racconta una storia vissuta, ${quoted}`,
  asks: (quoted, time) => `chiede ${quoted} a ${time}`,
  answers: (quoted) => `risponde con ${quoted}`,
  reaction: (kind, times) => `${{ laughter: 'risate', applause: 'applausi', scream: 'un urlo', burst: 'un\'esplosione di suono' }[kind]} a ${times.join(' e ')}`,
  turns: (_word, time) => `ha una svolta a ${time}`,
  number: (quoted) => `dà subito un numero, ${quoted}`,
  pitch: (time, detail) => {
    const st = semitones(detail);
    return `la voce varia di più a ${time}${st ? ` (${st} semitoni)` : ''}`;
  },
  emotion: () => 'parole cariche di emozione',
  heatmap: 'uno dei tratti più rivisti del video',
  noStrong: 'senza un aggancio o una reazione forte',
  endsOn: (punchline, quoted) => `finisce ${punchline ? 'sulla battuta finale ' : 'con '}${quoted}`,
  steady: (from, to) => `Un passaggio uniforme, da ${from} a ${to}, senza un aggancio o una reazione forte`,
  fallback: 'Un passaggio della durata richiesta.',
  split: 'Due persone: schermo diviso, una per metà',
  screen: 'Registrazione dello schermo: schermo sopra, chi parla sotto',
};

const PORTUGUESE: Phrasebook = {
  quotes: ['“', '”'],
  instructions: (lines, quoted) => {
    const n = lineCount(lines);
    return `Instruções lidas em voz alta${n ? ` (${n[0]} de ${n[1]} frases)` : ''}, por exemplo ${quoted}`;
  },
  opensWithQuestion: (quoted) => `Abre com uma pergunta, ${quoted}`,
  opensWith: (_kind, quoted) => `Abre com ${quoted}`,
  story: (quoted) => `conta uma história vivida, ${quoted}`,
  asks: (quoted, time) => `pergunta ${quoted} em ${time}`,
  answers: (quoted) => `responde com ${quoted}`,
  reaction: (kind, times) => `${{ laughter: 'risos', applause: 'aplausos', scream: 'um grito', burst: 'uma explosão de som' }[kind]} em ${times.join(' e ')}`,
  turns: (_word, time) => `muda de rumo em ${time}`,
  number: (quoted) => `dá um número logo de início, ${quoted}`,
  pitch: (time, detail) => {
    const st = semitones(detail);
    return `a voz varia mais em ${time}${st ? ` (${st} semitons)` : ''}`;
  },
  emotion: () => 'palavras carregadas de emoção',
  heatmap: 'um dos trechos mais revistos do vídeo',
  noStrong: 'sem gancho nem reação forte',
  endsOn: (punchline, quoted) => `termina ${punchline ? 'no desfecho ' : 'com '}${quoted}`,
  steady: (from, to) => `Um trecho regular, de ${from} a ${to}, sem gancho nem reação forte`,
  fallback: 'Um trecho com a duração pedida.',
  split: 'Duas pessoas: tela dividida, uma em cada metade',
  screen: 'Gravação de tela: a tela em cima, quem fala embaixo',
};

const PHRASEBOOKS: Readonly<Record<string, Phrasebook>> = { en: ENGLISH, es: SPANISH, fr: FRENCH, de: GERMAN, it: ITALIAN, pt: PORTUGUESE };

/** Languages whose reason is written in the language itself (the rest get English). */
export const REASON_LANGUAGES = Object.keys(PHRASEBOOKS);

/** "m:ss" of clip-relative seconds. */
export function clock(sec: number): string {
  const s = Math.round(sec);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A sentence in the language's quotation marks, cut at a word boundary with an ellipsis when long. */
function quote(text: string | undefined, book: Phrasebook = ENGLISH, max = QUOTE_MAX_CHARS): string {
  const [open, close] = book.quotes;
  // Inner quotation marks go (they would nest), and so does a final full stop: the reason goes on after it.
  const t = (text ?? '').replace(/\s+/g, ' ').trim().replace(/["“”«»„]/g, '').replace(/[.。]+$/u, '');
  if ([...t].length <= max) return `${open}${t}${close}`;
  const cut = [...t].slice(0, max).join('');
  // A text without spaces (Chinese, Japanese) is cut at the length itself.
  const space = cut.lastIndexOf(' ');
  return `${open}${cut.slice(0, space > 0 ? Math.max(20, space) : cut.length).replace(/[\s,;:，、]+$/u, '')}…${close}`;
}
