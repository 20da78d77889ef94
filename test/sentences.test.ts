import { describe, expect, it } from 'vitest';
import { buildSentences, MAX_SENTENCE_SEC, MAX_SENTENCE_WORDS } from '../src/pipeline/transcribe/sentences.js';
import type { Word } from '../src/domain/transcript.js';

/** Words from "text" at a steady pace: each word 0.3 s, 0.1 s apart, with extra pauses where asked. */
function words(text: string, opts: { start?: number; pauses?: Record<number, number> } = {}): Word[] {
  let t = opts.start ?? 0;
  return text.split(' ').map((w, i) => {
    const word = { text: w, start: t, end: t + 0.3, probability: 0.9 };
    t += 0.4 + (opts.pauses?.[i] ?? 0);
    return word;
  });
}

describe('buildSentences', () => {
  it('returns no sentences for no words', () => {
    expect(buildSentences([])).toEqual([]);
  });

  it('splits at sentence-final punctuation and indexes from 0', () => {
    const ws = words('Hello there. How are you? I am fine!');
    const s = buildSentences(ws);
    expect(s.map((x) => x.sentence)).toEqual(['Hello there.', 'How are you?', 'I am fine!']);
    expect(s.map((x) => x.index)).toEqual([0, 1, 2]);
    expect(s[1]).toMatchObject({ start: ws[2]!.start, end: ws[4]!.end });
    expect(s[1]!.words).toEqual(ws.slice(2, 5));
  });

  it('treats closing quotes and brackets after the period as the end of a sentence', () => {
    expect(buildSentences(words('He said "stop." Then left.')).map((x) => x.sentence)).toEqual(['He said "stop."', 'Then left.']);
  });

  it('keeps titles and mid-sentence initials inside the sentence', () => {
    const s = buildSentences(words('Mr. Smith moved to the U.S. last year. Dr. Who agreed.'));
    expect(s.map((x) => x.sentence)).toEqual(['Mr. Smith moved to the U.S. last year.', 'Dr. Who agreed.']);
  });

  it('ends a sentence at initials when the next word is capitalised', () => {
    expect(buildSentences(words('I moved to the U.S. It was cold.')).map((x) => x.sentence)).toEqual(['I moved to the U.S.', 'It was cold.']);
  });

  it('splits on a pause over 1.2 s (gap 0.1 + 1.2) even without punctuation', () => {
    const s = buildSentences(words('so that was it and then we left', { pauses: { 3: 1.2 } }));
    expect(s.map((x) => x.sentence)).toEqual(['so that was it', 'and then we left']);
  });

  it('does not split on a pause of 1 s (gap 0.1 + 0.9)', () => {
    expect(buildSentences(words('so that was it and then we left', { pauses: { 3: 0.9 } }))).toHaveLength(1);
  });

  it('ends the last sentence at the last word even without punctuation', () => {
    const s = buildSentences(words('One sentence. and a trailing fragment'));
    expect(s.map((x) => x.sentence)).toEqual(['One sentence.', 'and a trailing fragment']);
  });

  it('trims word text and skips empty words', () => {
    const ws: Word[] = [
      { text: ' Hello', start: 0, end: 0.3, probability: 1 },
      { text: ' ', start: 0.3, end: 0.4, probability: 1 },
      { text: 'world. ', start: 0.4, end: 0.8, probability: 1 },
    ];
    const s = buildSentences(ws);
    expect(s).toHaveLength(1);
    expect(s[0]!.sentence).toBe('Hello world.');
    expect(s[0]!.words).toHaveLength(2);
  });

  it(`caps a sentence over ${MAX_SENTENCE_WORDS} words at its largest pause`, () => {
    const text = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
    const s = buildSentences(words(text, { pauses: { 49: 0.6, 20: 0.3 } }));
    expect(s.map((x) => x.words.length)).toEqual([50, 30]);
    expect(s[0]!.sentence.endsWith('w49')).toBe(true);
    expect(s.map((x) => x.index)).toEqual([0, 1]);
  });

  it(`caps a sentence over ${MAX_SENTENCE_SEC} s at a comma when there are no pauses`, () => {
    // 40 slow words (0.8 s each) = 32 s, all with equal gaps; a comma after word 14.
    const ws = Array.from({ length: 40 }, (_, i): Word => ({ text: i === 14 ? `w${i},` : `w${i}`, start: i * 0.8, end: i * 0.8 + 0.7, probability: 1 }));
    const s = buildSentences(ws);
    expect(s.map((x) => x.words.length)).toEqual([15, 25]);
    expect(s[0]!.sentence.endsWith('w14,')).toBe(true);
  });

  it('splits a very long run repeatedly until every piece fits', () => {
    const ws = words(Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '));
    const s = buildSentences(ws);
    for (const x of s) {
      expect(x.words.length).toBeLessThanOrEqual(MAX_SENTENCE_WORDS);
      expect(x.end - x.start).toBeLessThanOrEqual(MAX_SENTENCE_SEC);
    }
    expect(s.flatMap((x) => x.words)).toEqual(ws);
    expect(s.map((x) => x.index)).toEqual(s.map((_, i) => i));
  });

  it('ends sentences at the marks of every script', () => {
    const split = (text: string, language?: string) => buildSentences(words(text), language).map((x) => x.sentence);
    expect(split('هل أنت بخير؟ نعم، شكرا.', 'ar')).toEqual(['هل أنت بخير؟', 'نعم، شكرا.']);
    expect(split('یہ کتاب ہے۔ وہ قلم ہے۔', 'ur')).toEqual(['یہ کتاب ہے۔', 'وہ قلم ہے۔']);
    expect(split('आज मौसम अच्छा है। हम बाज़ार जाएंगे।', 'hi')).toEqual(['आज मौसम अच्छा है।', 'हम बाज़ार जाएंगे।']);
    expect(split('ዛሬ ጥሩ ቀን ነው። እንሂድ።', 'am')).toEqual(['ዛሬ ጥሩ ቀን ነው።', 'እንሂድ።']);
    // Greek writes its question mark as ";" (U+037E, or the semicolon NFC turns it into).
    expect(split('Τι κάνεις; Καλά είμαι.', 'el')).toEqual(['Τι κάνεις;', 'Καλά είμαι.']);
    expect(split('Τι κάνεις\u037e Καλά.', 'el')).toEqual(['Τι κάνεις\u037e', 'Καλά.']);
    // An English semicolon does not end a sentence.
    expect(split('I came; I saw.', 'en')).toEqual(['I came; I saw.']);
  });

  it('joins Chinese and Japanese words without spaces and splits at 。！？', () => {
    const s = buildSentences(words('今天 天气 很好。 我们 一起 去 公园 散步 吧！ 你 想 喝 咖啡 还是 茶？'), 'zh');
    expect(s.map((x) => x.sentence)).toEqual(['今天天气很好。', '我们一起去公园散步吧！', '你想喝咖啡还是茶？']);
    expect(s[1]!.words).toHaveLength(6);
    const ja = buildSentences(words('「 はい。」 と 言った。 私は iPhone を 使う。'), 'ja');
    expect(ja.map((x) => x.sentence)).toEqual(['「はい。」', 'と言った。', '私はiPhoneを使う。']);
  });

  it('reads English abbreviations only in English: "no." ends a Spanish sentence', () => {
    expect(buildSentences(words('Creo que no. Vamos ya.'), 'es').map((x) => x.sentence)).toEqual(['Creo que no.', 'Vamos ya.']);
    expect(buildSentences(words('See no. 5 here.'), 'en')).toHaveLength(1);
  });

  it('does not mutate its input', () => {
    const ws = words('A b. C d.');
    const copy = structuredClone(ws);
    buildSentences(ws);
    expect(ws).toEqual(copy);
  });
});
