// Words of scripts written without spaces (Chinese, Japanese) from whisper.cpp's tokens: real words with
// their own times (Intl.Segmenter), never one word per phrase, never a character broken into U+FFFD.
// The token streams are whisper.cpp's own output for espeak-ng speech (test/fixtures/whisper-json).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinWords, scriptMismatch, segmentWords, spokenLength } from '../src/pipeline/shared/script-text.js';
import { scriptWarning } from '../src/pipeline/transcribe/script-warning.js';
import { wordsFromWhisperJson, type WhisperJson } from '../src/pipeline/transcribe/whisper-cli.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'whisper-json');
/** As runWhisperCli reads it: latin1, so each token keeps its raw UTF-8 bytes. */
const recorded = (name: string): WhisperJson => JSON.parse(readFileSync(path.join(FIXTURES, name), 'latin1')) as WhisperJson;
const segmentText = (json: WhisperJson) => (json.transcription ?? []).map((s) => Buffer.from(s.text, 'latin1').toString('utf8').replace(/\s+/g, '')).join('');
/** A token given as its UTF-8 bytes (or as raw bytes), as the latin1 reading holds it. */
const tok = (text: string | Buffer, from: number, to: number, p = 0.9) => ({ text: (typeof text === 'string' ? Buffer.from(text, 'utf8') : text).toString('latin1'), offsets: { from, to }, p });

describe('words of scripts without spaces', () => {
  it('Japanese: kana tokens become dictionary words with their own times, the text kept whole', () => {
    const json = recorded('ja-espeak.json');
    const words = wordsFromWhisperJson(json, { start: 10, end: 15 });
    const texts = words.map((w) => w.text);
    // Whisper heard "よくはいてんきめすね、わたしは、超えに行きまーす。" (espeak-ng's robotic voice).
    expect(texts.slice(0, 3)).toEqual(['よく', 'はい', 'てんき']);
    expect(texts).toContain('わたし');
    expect(texts).toContain('行き');
    // Punctuation rides with its word; nothing is lost or garbled.
    expect(texts).toContain('すね、');
    expect(joinWords(texts)).toBe(segmentText(json));
    expect(texts.join('')).not.toContain('\uFFFD');
    // Fewer words than kana tokens, more than one per phrase, each timed inside the speech.
    expect(words.length).toBeGreaterThan(8);
    expect(words.length).toBeLessThan(24);
    for (const w of words) {
      expect(w.end - w.start).toBeLessThan(1);
      expect(w.start).toBeGreaterThanOrEqual(10);
      expect(w.end).toBeLessThanOrEqual(10 + 4.4);
    }
    const watashi = words.find((w) => w.text === 'わたし')!;
    // わ た し: tokens from 2.04 s to 2.31 s.
    expect(watashi.start).toBeCloseTo(12.04, 2);
    expect(watashi.end).toBeCloseTo(12.31, 2);
  });

  it('Chinese: multi-character tokens and a space token become words; times follow the tokens', () => {
    const json = recorded('zh-espeak.json');
    const words = wordsFromWhisperJson(json, { start: 0, end: 10 });
    const texts = words.map((w) => w.text);
    // Whisper wrote "煎煎煎起恩 傲我們一起去公園散步吧" and "你想喝咖啡 愛吃咖啡".
    expect(texts).toEqual(expect.arrayContaining(['我們', '一起去', '公園', '散步', '咖啡']));
    expect(joinWords(texts)).toBe(segmentText(json));
    for (const w of words) expect(w.end - w.start).toBeLessThan(1.2);
    // 公 (4.02-4.30) 園 (4.31-4.59): the word spans both tokens.
    const park = words.find((w) => w.text === '公園')!;
    expect(park.start).toBeCloseTo(4.02, 2);
    expect(park.end).toBeCloseTo(4.59, 2);
    // The space token separates "恩" from "傲": no word runs across it.
    expect(texts.some((t) => t.includes('恩傲'))).toBe(false);
  });

  it('a character split across tokens by byte-level BPE is joined, not turned into U+FFFD', () => {
    // 买 and 蔬 are not in Whisper's vocabulary as whole characters: its tokenizer writes E4 B9 | B0 and E8 94 | AC.
    const mai = Buffer.from('买'), shu = Buffer.from('蔬');
    const json: WhisperJson = { result: { language: 'zh' }, transcription: [{ offsets: { from: 0, to: 3000 }, text: '', tokens: [
      tok('[_BEG_]', 0, 0), tok('我们', 0, 600), tok('去', 600, 900), tok('市场', 900, 1500),
      tok(mai.subarray(0, 2), 1500, 1650), tok(mai.subarray(2), 1650, 1800),
      tok(shu.subarray(0, 2), 1800, 2000), tok(shu.subarray(2), 2000, 2100), tok('菜', 2100, 2500), tok('。', 2500, 2500),
    ] }] };
    const words = wordsFromWhisperJson(json, { start: 0, end: 3 });
    expect(words.map((w) => w.text)).toEqual(['我们', '去', '市场', '买', '蔬菜。']);
    expect(words[3]).toMatchObject({ start: 1.5, end: 1.8 });
    expect(words[4]).toMatchObject({ start: 1.8, end: 2.5 });
  });

  it('a token holding two words shares its time out by bytes', () => {
    const json: WhisperJson = { transcription: [{ offsets: { from: 0, to: 2000 }, text: '', tokens: [tok('今天天气', 0, 1200), tok('很好', 1200, 1800)] }] };
    const words = wordsFromWhisperJson(json, { start: 0, end: 2 });
    expect(words.map((w) => [w.text, w.start, w.end])).toEqual([['今天', 0, 0.6], ['天气', 0.6, 1.2], ['很好', 1.2, 1.8]]);
  });

  it('spaced scripts keep their words as before, a Latin name inside Chinese stays one word', () => {
    const en: WhisperJson = { transcription: [{ offsets: { from: 0, to: 2000 }, text: '', tokens: [tok(' Hel', 0, 200), tok('lo', 200, 400), tok(',', 400, 400), tok(' world', 500, 900), tok('.', 900, 900)] }] };
    expect(wordsFromWhisperJson(en, { start: 0, end: 2 }).map((w) => [w.text, w.start, w.end])).toEqual([['Hello,', 0, 0.4], ['world.', 0.5, 0.9]]);
    const mixed: WhisperJson = { transcription: [{ offsets: { from: 0, to: 2000 }, text: '', tokens: [tok('我用', 0, 400), tok('i', 400, 500), tok('Phone', 500, 900), tok('拍照', 900, 1400)] }] };
    expect(wordsFromWhisperJson(mixed, { start: 0, end: 2 }).map((w) => w.text)).toEqual(['我', '用', 'iPhone', '拍照']);
  });

  it('segments text into words with marks attached, and joins them back without spaces where the script has none', () => {
    expect(segmentWords('今天天气很好。你想喝咖啡还是喝茶？').map((w) => w.text)).toEqual(['今天', '天气', '很好。', '你想', '喝', '咖啡', '还是', '喝茶？']);
    expect(segmentWords('「こんにちは」と言った。').map((w) => w.text)).toEqual(['「こんにちは」', 'と', '言っ', 'た。']);
    expect(joinWords(['我', '用', 'iPhone', '拍照，', '3.5', '元'])).toBe('我用iPhone拍照，3.5元');
    expect(joinWords(['Hello,', 'world.'])).toBe('Hello, world.');
    // A Han character is a syllable, about three letters of speech; kana a mora.
    expect(spokenLength('公園')).toBe(6);
    expect(spokenLength('わたし')).toBe(6);
    expect(spokenLength('park.')).toBe(4);
  });
});

describe('a transcript in another script than its language', () => {
  // Real base-q5_1 output (whisper-cli -l mr) for Festival's Marathi voice reading
  // "आज हवामान खूप छान आहे आणि सूर्य चमकत आहे...": the words are Marathi, the letters Latin.
  const marathiInLatin = 'Aaja Hava Manakho Pachhan Aai Aani Suria Chamakata Aai Amhi Bhajarata Fali Aani Bhajar Ghyayala Jaanar Aahuta';
  // The same model on Festival's Hindi voice, in Devanagari as it should be.
  const hindi = 'आजमों समचा में बहुताच्वा हैुरा सुराचा मैं करा है हमचा करा वालाुरा करीदम कि जा मैं को हम एपने तुस्तम कि साथा का';

  it('is caught, and the warning names the model, the language and both scripts', () => {
    const m = scriptMismatch('mr', marathiInLatin);
    expect(m).toMatchObject({ expected: 'Devanagari', found: 'Latin' });
    expect(m!.share).toBeGreaterThan(0.95);
    const warning = scriptWarning({ language: 'mr', model: 'base-q5_1' }, m!);
    expect(warning).toContain('base-q5_1');
    expect(warning).toContain('Marathi (mr)');
    expect(warning).toMatch(/Latin letters .* not Devanagari/);
  });

  it('stays quiet for text in its own script, a few Latin names in it, Serbian in either script, and short texts', () => {
    expect(scriptMismatch('hi', hindi)).toBeNull();
    expect(scriptMismatch('hi', `${hindi} iPhone Google YouTube`)).toBeNull();
    expect(scriptMismatch('ja', 'きょうはとてもいい天気ですね。わたしたちは公園に行きます。')).toBeNull();
    expect(scriptMismatch('sr', 'Добар дан, како сте данас, надам се да сте добро')).toBeNull();
    expect(scriptMismatch('sr', 'Dobar dan, kako ste danas, nadam se da ste dobro')).toBeNull();
    expect(scriptMismatch('es', 'Hola a todos')).toBeNull();
    // English speech that a model wrote in Cyrillic would be flagged as well.
    expect(scriptMismatch('en', 'Привет всем, сегодня мы поговорим о погоде')).toMatchObject({ expected: 'Latin', found: 'Cyrillic' });
  });
});
