// Titles, descriptions and hashtags judged on real transcripts: what Whisper (tiny.en q8_0, through the
// real transcriber) heard in real recordings. Two are transcribed here (the demo sample talk.mp4 and the
// JFK clip); three longer ones are saved Whisper output (test/fixtures/copywriter/README.md says how they
// were recorded) so the file stays fast: 25 minutes of recorded phone prompts, LibriVox's reading of
// Sense and Sensibility, and the Creative Commons narration "Wanna Work Together?".
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCopies, writeCopy } from '../src/pipeline/analyze/copywriter.js';
import { findHighlights } from '../src/pipeline/analyze/highlights.js';
import { buildSentences } from '../src/pipeline/transcribe/sentences.js';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import type { ClipCopy, Highlight, PreferredLength } from '../src/domain/highlight.js';
import type { Transcript, Word } from '../src/domain/transcript.js';
import { JFK_WAV } from './helpers/media.js';
import { TALK } from './helpers/talk.js';
import { makeTranscript } from './helpers/transcript.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SAMPLE_TALK = path.join(HERE, '..', 'assets', 'sample', 'talk.mp4');

function savedTranscript(name: string): Transcript {
  const saved = JSON.parse(readFileSync(path.join(HERE, 'fixtures', 'copywriter', `${name}.words.json`), 'utf8')) as
    { language: string; model: string; range: Transcript['range']; words: Word[] };
  return { ...saved, sentences: buildSentences(saved.words) };
}

/** A request over part of a long transcript: the sentences inside `range`, re-indexed as the pipeline would see them. */
function slice(t: Transcript, start: number, end: number): Transcript {
  const words = t.words.filter((w) => w.start >= start && w.end <= end);
  return { ...t, range: { start, end }, words, sentences: buildSentences(words) };
}

function picks(t: Transcript, preferredLength: PreferredLength): Highlight[] {
  return findHighlights({ transcript: t, audio: null, heatmap: [], preferredLength, maxShorts: null, noClipping: false, range: t.range });
}

/** A clip over the given sentences, as findHighlights would hand it on. */
function clipOver(t: Transcript, indexes: number[]): Highlight {
  const first = t.sentences.find((s) => s.index === indexes[0])!;
  const last = t.sentences.find((s) => s.index === indexes[indexes.length - 1])!;
  return {
    sentenceIndexes: indexes, start: first.start, end: last.end, viralScore: 50, strengths: [], evidence: [],
    features: { hook: 0, selfContained: 0.5, topic: 0.5, story: 0, questionAnswer: 0, contrast: 0, emotion: 0, reaction: 0, prosody: 0, heatmap: 0, lengthFit: 1, procedural: 0 },
  };
}

function sentenceWith(t: Transcript, phrase: string): number {
  const s = t.sentences.find((x) => x.sentence.toLowerCase().includes(phrase));
  if (!s) throw new Error(`no sentence says "${phrase}"`);
  return s.index;
}

function clipText(h: Highlight, t: Transcript): string {
  return t.sentences.filter((s) => h.sentenceIndexes.includes(s.index)).map((s) => s.sentence).join(' ');
}

function words(text: string): string[] {
  return text.toLowerCase().replace(/[\u2018\u2019]/g, '\'').split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')).filter(Boolean);
}

function hashtagsOf(description: string): string[] {
  return description.match(/#\S+/g) ?? [];
}

// English closed-class words, by definition rather than from any recording: a title that ends on one
// stops mid-phrase ("… of Your Party's", "… Channel Driver, Instead" is the adverb case below).
const ARTICLES_AND_DETERMINERS = 'a an the this these those every each';
const PREPOSITIONS = 'of to for with from at by into onto than as via per about';
const CONJUNCTIONS = 'and or but nor yet so if unless because although though whereas while when where whether';
const POSSESSIVES = 'my your his her its our their whose';
const AUXILIARIES = 'is are was were be been being am will would shall should can could may might must';
const SUBJECT_PRONOUNS = 'i we they he she';
const FUNCTION_WORDS = new Set([ARTICLES_AND_DETERMINERS, PREPOSITIONS, CONJUNCTIONS, POSSESSIVES, AUXILIARIES, SUBJECT_PRONOUNS, 'which who whom what how why not']
  .join(' ').split(' '));
/** Connectives that tie a line to the one before it: "Unless to Be Rather Cold-hearted…" starts mid-argument. */
const DANGLING_OPENERS = new Set('and but or nor so yet plus also then however instead anyway besides therefore unless whereas which who whom'.split(' '));
const ADVERBS = new Set(`rather very quite really just only also even still already almost always never often then there here now instead however
  maybe probably actually together currently successfully terribly quickly prudently automatically clearly exactly freely luckily recently
  directly immediately totally forever anywhere`.split(/\s+/));
/** Verbs the previous copywriter turned into hashtags on these same recordings (#Press, #Enter, #Feel …). */
const VERB_TAGS_SEEN_BEFORE = new Set(['press', 'enter', 'please', 'increase', 'decrease', 'followed', 'use', 'try', 'send', 'record', 'ask', 'feel',
  'allow', 'understand', 'share', 'need', 'create', 'improve', 'calling', 'thank', 'begin', 'arrives', 'accept', 'wish', 'kicked', 'completed', 'dialed']);

function expectTitleStandsAlone(title: string, h: Highlight, t: Transcript): void {
  const ws = words(title);
  const last = ws[ws.length - 1]!;
  expect(FUNCTION_WORDS.has(last), `"${title}" ends on "${last}"`).toBe(false);
  expect(/'s$/.test(last), `"${title}" ends on a possessive`).toBe(false);
  expect(DANGLING_OPENERS.has(ws[0]!), `"${title}" starts on "${ws[0]}"`).toBe(false);
  expect(title.length).toBeLessThanOrEqual(60);
  expect(title).not.toMatch(/[,;:]$/);
  const said = new Set(words(clipText(h, t)));
  for (const w of ws) expect(said, `"${w}" of "${title}"`).toContain(w);
}

function expectTopicHashtags(description: string, h: Highlight, t: Transcript): void {
  const said = clipText(h, t).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const tags = hashtagsOf(description);
  expect(tags.length).toBeGreaterThanOrEqual(3);
  expect(tags.length).toBeLessThanOrEqual(5);
  expect(new Set(tags.map((x) => x.toLowerCase())).size).toBe(tags.length);
  for (const tag of tags) {
    expect(tag).toMatch(/^#[\p{L}\p{N}]+$/u);
    const word = tag.slice(1).toLowerCase();
    if (['shorts', 'clips', 'video'].includes(word)) continue;
    expect(said, `${tag} is not from the clip`).toContain(word);
    expect(FUNCTION_WORDS.has(word) || ADVERBS.has(word), `${tag} is a function word or an adverb`).toBe(false);
    expect(VERB_TAGS_SEEN_BEFORE.has(word), `${tag} is a verb`).toBe(false);
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'shorts-copy-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const prompts = savedTranscript('allison-prompts');
const austen = savedTranscript('librivox-austen');
const narration = savedTranscript('wannaworktogether');
/** Every request below: a recording (or a 5-minute range of the prompt reel) and a clip length. */
const requests: { name: string; t: Transcript; length: PreferredLength }[] = [];
/** What the pipeline makes of each request: its clips and their copy, written for all clips at once. */
const results: { name: string; t: Transcript; clips: Highlight[]; copies: ClipCopy[] }[] = [];
for (const length of ['under30sec', 'under60sec'] as PreferredLength[]) {
  for (let k = 0; k < 5; k++) requests.push({ name: `prompts ${k * 5}-${k * 5 + 5} min`, t: slice(prompts, k * 300, (k + 1) * 300), length });
  requests.push({ name: 'Austen', t: austen, length }, { name: 'narration', t: narration, length });
}

describe('copy on real transcripts', () => {
  beforeAll(async () => {
    const transcriber = createTranscriber({ dataDir: tmp, model: process.env.SHORTS_WHISPER_MODEL });
    for (const [name, mediaPath, end] of [['sample talk', SAMPLE_TALK, 80], ['JFK', JFK_WAV, 11]] as const) {
      const t = await transcriber.transcribe({ mediaPath, range: { start: 0, end }, language: 'en' });
      for (const length of ['under30sec', 'under60sec'] as PreferredLength[]) requests.push({ name, t, length });
    }
    for (const r of requests) {
      const clips = picks(r.t, r.length);
      results.push({ name: `${r.name} ${r.length}`, t: r.t, clips, copies: writeCopies(clips, r.t) });
    }
  });

  it('titles every clip with a complete phrase: no function word at the end, no connective at the start', () => {
    for (const r of results) r.clips.forEach((h, k) => expectTitleStandsAlone(r.copies[k]!.title, h, r.t));
    expect(results.reduce((n, r) => n + r.clips.length, 0)).toBeGreaterThan(40);
  });

  it('tags every clip with nouns and names from its own words, never function words, adverbs or verbs', () => {
    for (const r of results) {
      r.copies.forEach((c, k) => {
        expectTopicHashtags(c.description, r.clips[k]!, r.t);
        const summary = c.description.slice(0, c.description.indexOf('#')).trim();
        expect(summary).toMatch(/^\S.*[.!?…]$/);
      });
    }
  });

  it('gives no two clips of one request the same title or description', () => {
    for (const { name, copies } of results) {
      expect(new Set(copies.map((c) => c.title.toLowerCase())).size, name).toBe(copies.length);
      expect(new Set(copies.map((c) => c.description)).size, name).toBe(copies.length);
    }
  });

  it('keeps two clips that open on the same prompt apart (one moment cut at two lengths)', () => {
    const i = sentenceWith(prompts, 'decrease or increase your');
    const short = clipOver(prompts, [i, i + 1, i + 2]);
    const long = clipOver(prompts, [i, i + 1, i + 2, i + 3, i + 4, i + 5]);
    const [a, b] = writeCopies([short, long], prompts) as [ClipCopy, ClipCopy];
    expect(a.title).not.toBe(b.title);
    expect(a.description).not.toBe(b.description);
    // Each alone would take the same opening line.
    expect(writeCopy(long, prompts).title).toBe(a.title);
  });

  it('cuts "Please enter the first three letters of your party\'s last name …" where its phrase closes', () => {
    const i = sentenceWith(prompts, 'first three letters of your party\'s last');
    const h = clipOver(prompts, [i]);
    const { title } = writeCopy(h, prompts);
    expect(title).toBe('Please Enter the First Three Letters');
  });

  it('does not title a clip with a clause that has no main clause ("If you are using a console channel driver …")', () => {
    const i = sentenceWith(prompts, 'console channel driver');
    const h = clipOver(prompts, [i - 1, i, i + 1]);
    const { title } = writeCopy(h, prompts);
    expect(title).not.toMatch(/^If You Are Using/);
    expectTitleStandsAlone(title, h, prompts);
  });

  it('titles the Austen reading without starting mid-argument and tags it without #Rather or #Might', () => {
    const h = clipOver(austen, austen.sentences.map((s) => s.index));
    const { title, description } = writeCopy(h, austen);
    expect(title).not.toMatch(/^Unless/);
    expectTitleStandsAlone(title, h, austen);
    const tags = hashtagsOf(description).map((x) => x.toLowerCase());
    for (const bad of ['#rather', '#might', '#unless', '#ill']) expect(tags).not.toContain(bad);
    expect(tags).toContain('#johndashwood');
  });

  it('applies no English rule to a transcript in another language: no Title Case, no English filler tags', () => {
    // The same words labelled Spanish: English title case and the #clips/#video fillers are English
    // conventions, so none of them may appear (test/copy-languages.test.ts judges real Spanish speech).
    const t: Transcript = { ...narration, language: 'es' };
    const hs = picks(t, 'under30sec');
    const copies = writeCopies(hs, t);
    expect(copies).toHaveLength(hs.length);
    const said = new Set(t.words.map((w) => w.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')));
    for (const c of copies) {
      expect(c.title.length).toBeGreaterThan(0);
      expect(c.title.length).toBeLessThanOrEqual(60);
      // Sentence case: after the first, every word is written as Whisper wrote it.
      for (const w of c.title.split(' ').slice(1)) expect(said, `"${w}" of "${c.title}"`).toContain(w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
      const tags = hashtagsOf(c.description);
      expect(tags).toContain('#shorts');
      expect(tags).not.toContain('#clips');
      expect(tags).not.toContain('#video');
    }
    expect(new Set(copies.map((c) => c.title)).size).toBe(copies.length);
  });
});

describe('writeCopy on the written podcast script', () => {
  const talk = makeTranscript(TALK);
  const top = picks(talk, 'under30sec');

  it('titles the restaurant clip with its opening question', () => {
    expect(top[0]!.sentenceIndexes[0]).toBe(6);
    expect(writeCopy(top[0]!, talk).title).toBe('Why Do Ninety Percent of New Restaurants Fail?');
  });

  it('trims filler from the start of the title and cuts a long sentence at a clause', () => {
    const t = makeTranscript([
      'So, um, you know, the biggest mistake you can make, and I made it for years, is waiting until you feel motivated to start.',
      'Motivation shows up after you begin, not before.',
    ]);
    const { title } = writeCopy(clipOver(t, [0, 1]), t);
    expect(title).toBe('The Biggest Mistake You Can Make');
  });

  it('tags the restaurant clip with its topic words', () => {
    const tags = hashtagsOf(writeCopy(top[0]!, talk).description).map((x) => x.toLowerCase());
    expect(tags).toContain('#restaurants');
    expect(tags).toContain('#chef');
    expect(tags).not.toContain('#ninety');
  });

  it('is deterministic', () => {
    expect(writeCopies(top, talk)).toEqual(writeCopies(top, talk));
  });
});
