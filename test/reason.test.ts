import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findHighlights } from '../src/pipeline/analyze/highlights.js';
import { clock, writeReason } from '../src/pipeline/analyze/reason.js';
import { buildSentences } from '../src/pipeline/transcribe/sentences.js';
import type { Evidence, Highlight, HighlightFeatures } from '../src/domain/highlight.js';
import type { Sentence, Word } from '../src/domain/transcript.js';
import { dryTalkTranscript } from './helpers/dry-talk-transcript.js';

const flat: HighlightFeatures = {
  hook: 0, selfContained: 0.8, topic: 0.5, story: 0, questionAnswer: 0, contrast: 0, emotion: 0, reaction: 0, prosody: 0.5,
  heatmap: 0, lengthFit: 1, procedural: 0,
};

describe('writeReason', () => {
  it('names what the scorer found in the clip: the story, the laughter with its clip times, the punchline it laughed at', () => {
    // A real Whisper transcript; the evidence is what the scorer reports for a clip of it.
    const t = dryTalkTranscript();
    const clip = t.sentences.slice(17, 22);
    const h: Highlight = {
      sentenceIndexes: clip.map((s) => s.index), start: clip[0]!.start, end: clip[4]!.end, viralScore: 84,
      features: { ...flat, story: 0.8, reaction: 0.9 }, strengths: ['reaction', 'story'],
      evidence: [
        { kind: 'story', at: clip[0]!.start, text: clip[0]!.sentence, detail: 'last winter' },
        { kind: 'laughter', at: clip[0]!.start + 15.4 },
        { kind: 'punchline', at: clip[4]!.start, text: clip[4]!.sentence },
        { kind: 'laughter', at: clip[4]!.end + 0.4 },
      ],
    };
    const reason = writeReason(h, clip);
    expect(reason).toContain('story');
    expect(reason).toContain('"Last winter my neighbor');
    expect(reason).toContain('laughter at 0:15 and 0:28');
    expect(reason).toMatch(/ends on the punchline "My neighbor just shrugged.*remote"/);
  });

  it('says plainly when a clip is mostly instructions, quoting one, instead of praising it', () => {
    const t = dryTalkTranscript();
    // Whisper's sentences 24-29: "Press one to record your unavailable message." and five more like it.
    const hs = findHighlights({ transcript: t, audio: null, heatmap: [], preferredLength: 'under30sec', maxShorts: 8, noClipping: false, range: t.range });
    const menu = hs.find((h) => h.features.procedural >= 0.8)!;
    expect(menu).toBeDefined();
    const clip = t.sentences.filter((s) => menu.sentenceIndexes.includes(s.index));
    const reason = writeReason(menu, clip);
    expect(reason).toMatch(/^Instructions read out \(\d+ of \d+ lines\), such as "/);
    const quoted = /"([^"]+?)…?"/.exec(reason)![1]!;
    expect(clip.some((s) => s.sentence.startsWith(quoted))).toBe(true);
  });

  it('writes clip-relative times as m:ss', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(14.4)).toBe('0:14');
    expect(clock(75.6)).toBe('1:16');
  });
});

describe('writeReason in the request\'s language', () => {
  // Real Whisper (base-q5_1) sentences of Spanish speech: test/fixtures/copy-languages/README.md.
  const saved = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'copy-languages', 'es-fortunes.words.json'), 'utf8')) as { words: Word[] };
  const clip: Sentence[] = buildSentences(saved.words, 'es').slice(0, 5);
  const evidence: Evidence[] = [
    { kind: 'story', at: clip[0]!.start, text: clip[0]!.sentence, detail: 'last winter' },
    { kind: 'laughter', at: clip[0]!.start + 4.2 },
    // What an English lexicon would have found in it: never to be quoted for Spanish.
    { kind: 'emotion', at: clip[1]!.start, detail: 'love, amazing' },
    { kind: 'contrast', at: clip[2]!.start, text: clip[2]!.sentence, detail: 'but' },
    { kind: 'punchline', at: clip[4]!.start, text: clip[4]!.sentence },
    { kind: 'laughter', at: clip[4]!.end + 0.3 },
  ];
  const h: Highlight = {
    sentenceIndexes: clip.map((s) => s.index), start: clip[0]!.start, end: clip[4]!.end, viralScore: 80,
    features: { ...flat, story: 0.8, reaction: 0.9, contrast: 0.4, emotion: 0.5 }, strengths: ['reaction', 'story'], evidence,
  };

  it('writes Spanish, quoting the clip in «», with the laughter times and the punchline, and no English word-list finding', () => {
    const reason = writeReason(h, clip, 'es');
    expect(reason).toMatch(/^Cuenta una historia en primera persona, «/);
    expect(reason).toContain('risas en 0:04 y ');
    expect(reason).toMatch(/termina con el remate «[^»]+»\.$/);
    expect(reason).not.toMatch(/love|amazing|"but"|story|laughter|ends on/);
  });

  it('writes French, German, Italian and Portuguese from their own phrasebooks (pt-BR as pt)', () => {
    expect(writeReason(h, clip, 'fr')).toMatch(/^Raconte une histoire vécue, «\u00a0.*des rires à 0:04 et .*se termine sur la chute «\u00a0/);
    expect(writeReason(h, clip, 'de')).toMatch(/^Erzählt eine selbst erlebte Geschichte, „.*Lachen bei 0:04 und .*endet mit der Pointe „/);
    expect(writeReason(h, clip, 'it')).toMatch(/^Racconta una storia vissuta, «.*risate a 0:04 e .*finisce sulla battuta finale «/);
    expect(writeReason(h, clip, 'pt-BR')).toMatch(/^Conta uma história vivida, “.*risos em 0:04 e .*termina no desfecho “/);
  });

  it('falls back to English for other languages, still without English word-list findings', () => {
    const reason = writeReason(h, clip, 'ru');
    expect(reason).toMatch(/^Tells a first-hand story, "/);
    expect(reason).not.toMatch(/love|amazing|turns on "but"/);
    // English keeps naming them.
    const english = writeReason({ ...h, evidence: evidence.filter((e) => e.kind !== 'laughter') }, clip, 'en');
    expect(english).toContain('turns on "but"');
  });
});

