import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, TEMPLATES, findTemplate, fontsDir, type CaptionTemplate } from '../src/catalog/templates.js';
import { assTime, buildAss, buildCues, escapeAssText, safeMargins, wordsPerCueFor } from '../src/pipeline/captions/captions.js';
import { segmentWords } from '../src/pipeline/shared/script-text.js';
import type { CaptionCue } from '../src/domain/captions.js';
import type { Word } from '../src/domain/transcript.js';

/** Words at absolute source times: [text, start, end]. */
function words(list: [string, number, number][]): Word[] {
  return list.map(([text, start, end]) => ({ text, start, end, probability: 0.9 }));
}

/** Evenly spaced words, 0.3 s long with 0.1 s gaps, starting at `from`. */
function steady(texts: string[], from: number): Word[] {
  return words(texts.map((t, i) => [t, from + i * 0.4, from + i * 0.4 + 0.3]));
}

const template = (name: string): CaptionTemplate => TEMPLATES.find((t) => t.name === name)!;
const dialogues = (ass: string) => ass.split('\n').filter((l) => l.startsWith('Dialogue:'));
/** [start, end, text] of each Dialogue line. */
const events = (ass: string) => dialogues(ass).map((l) => {
  const f = l.slice('Dialogue: '.length).split(',');
  return [f[1], f[2], f.slice(9).join(',')] as const;
});
const styleFields = (ass: string) => ass.split('\n').find((l) => l.startsWith('Style: '))!.slice(7).split(',');

describe('caption templates', () => {
  it('offers Karaoke as the default among the styles, each with a stable 24-hex id', () => {
    expect(DEFAULT_TEMPLATE.displayName).toBe('Karaoke');
    expect(DEFAULT_TEMPLATE.animation).toBe('karaoke-highlight');
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(3);
    expect(new Set(TEMPLATES.map((t) => t.templateId)).size).toBe(TEMPLATES.length);
    expect(new Set(TEMPLATES.map((t) => t.name)).size).toBe(TEMPLATES.length);
    for (const t of TEMPLATES) {
      expect(t.templateId).toMatch(/^[0-9a-f]{24}$/);
      for (const c of Object.values(t.colors)) expect(c).toMatch(/^#[0-9A-F]{6}$/i);
    }
    expect(DEFAULT_TEMPLATE.templateId).toBe('e406d10fb28cea57e8105110');
  });

  it('finds a template by id and answers undefined for an unknown id', () => {
    expect(findTemplate(DEFAULT_TEMPLATE.templateId)).toBe(DEFAULT_TEMPLATE);
    expect(findTemplate('000000000000000000000000')).toBeUndefined();
  });

  it('ships every template font in assets/fonts with its licence', () => {
    expect(path.isAbsolute(fontsDir())).toBe(true);
    for (const t of TEMPLATES) expect(existsSync(path.join(fontsDir(), t.font.file))).toBe(true);
    expect(existsSync(path.join(fontsDir(), 'OFL.txt'))).toBe(true);
    expect(existsSync(path.join(fontsDir(), 'README.md'))).toBe(true);
  });

  // A wrong family name would not fail: libass silently falls back to a system font. Ask libass itself.
  it("libass resolves each template's family to the shipped font file", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fontselect-'));
    try {
      for (const t of TEMPLATES) {
        const ass = path.join(dir, `${t.name}.ass`);
        writeFileSync(ass, buildAss([{ start: 0, end: 1, words: words([['Hi', 0, 1]]) }], t, { width: 320, height: 568 }));
        // libass reports its font choice at ffmpeg's info level, on stderr.
        const { stderr } = spawnSync('ffmpeg', ['-hide_banner', '-v', 'info', '-f', 'lavfi', '-i', 'color=c=gray:s=320x568:d=0.2',
          '-vf', `ass=filename=${ass}:fontsdir=${fontsDir()}`, '-frames:v', '1', '-f', 'null', '-'], { encoding: 'utf8' });
        const select = /fontselect: \(([^,]+), \d+, \d+\) -> ([^,]+),/.exec(stderr);
        expect(select?.[1]).toBe(t.font.family);
        expect(select?.[2]).toBe(path.basename(t.font.file, '.ttf'));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('buildCues', () => {
  it('groups words into phrases of at most wordsPerCue words', () => {
    const cues = buildCues(steady(['one', 'two', 'three', 'four', 'five', 'six', 'seven'], 0), { start: 0, end: 10 }, { wordsPerCue: 3 });
    expect(cues.map((c) => c.words.map((w) => w.text))).toEqual([['one', 'two', 'three'], ['four', 'five', 'six'], ['seven']]);
  });

  it('ends a phrase at punctuation and at a pause longer than 0.6 s', () => {
    const cues = buildCues(words([
      ['Hi,', 0, 0.3], ['there', 0.4, 0.7], ['friend.', 0.8, 1.1], ['Long', 1.2, 1.5], ['pause', 2.3, 2.6], ['after', 2.7, 3.0],
    ]), { start: 0, end: 5 }, { wordsPerCue: 6 });
    expect(cues.map((c) => c.words.map((w) => w.text))).toEqual([['Hi,'], ['there', 'friend.'], ['Long'], ['pause', 'after']]);
  });

  it('keeps a short pause inside a phrase', () => {
    const cues = buildCues(words([['a', 0, 0.3], ['b', 0.8, 1.0]]), { start: 0, end: 5 }, { wordsPerCue: 4 });
    expect(cues).toHaveLength(1);
  });

  it('cuts a phrase before it spans more than maxCueSec', () => {
    const cues = buildCues(steady(['a', 'b', 'c', 'd', 'e', 'f'], 0), { start: 0, end: 10 }, { wordsPerCue: 6, maxCueSec: 1 });
    // Words every 0.4 s, 0.3 s long: a third word would end 1.1 s after the phrase began.
    expect(cues.map((c) => c.words.map((w) => w.text))).toEqual([['a', 'b'], ['c', 'd'], ['e', 'f']]);
  });

  it('uses clip-relative times and drops words outside the clip', () => {
    const cues = buildCues(words([
      ['before', 99.0, 99.5], ['edge', 99.8, 100.4], ['inside', 100.5, 101.0], ['late', 104.8, 105.6], ['after', 106, 106.5],
    ]), { start: 100, end: 105 }, { wordsPerCue: 3 });
    const all = cues.flatMap((c) => c.words);
    // 'edge' is mostly inside (midpoint 100.1): kept and clamped to 0; 'late' is mostly outside.
    expect(all.map((w) => [w.text, w.start, w.end])).toEqual([['edge', 0, 0.4], ['inside', 0.5, 1]]);
    expect(cues[0]!.start).toBe(0);
  });

  it('keeps a phrase up until the next one when it follows closely, else lingers briefly', () => {
    const cues = buildCues(words([['one.', 0, 0.4], ['two.', 0.6, 1.0], ['three', 3.0, 3.4]]), { start: 0, end: 10 }, { wordsPerCue: 3 });
    expect(cues.map((c) => [c.start, c.end])).toEqual([[0, 0.6], [0.6, 1.5], [3, 3.9]]);
  });

  it('never runs past the clip end', () => {
    const cues = buildCues(words([['end', 4.5, 4.9]]), { start: 0, end: 5 }, { wordsPerCue: 3 });
    expect(cues[0]!.end).toBe(5);
  });

  it('trims whitespace from word text and skips empty words', () => {
    const cues = buildCues(words([[' hello ', 0, 0.3], ['  ', 0.3, 0.4], ['world', 0.4, 0.7]]), { start: 0, end: 2 }, { wordsPerCue: 4 });
    expect(cues[0]!.words.map((w) => w.text)).toEqual(['hello', 'world']);
  });
});

describe('buildAss', () => {
  const video = { width: 1080, height: 1920 };
  const cue: CaptionCue = { start: 1, end: 2.8, words: words([['ask', 1, 1.3], ['not', 1.4, 1.8], ['what', 1.9, 2.2], ['your', 2.3, 2.5]]) };

  it('sets PlayRes to the output size and scales the template font by width', () => {
    const ass = buildAss([cue], DEFAULT_TEMPLATE, { width: 540, height: 960 });
    expect(ass).toContain('PlayResX: 540\nPlayResY: 960');
    const style = styleFields(ass);
    expect(style[1]).toBe(DEFAULT_TEMPLATE.font.family);
    expect(Number(style[2])).toBe(Math.round(DEFAULT_TEMPLATE.font.size / 2));
  });

  it('karaoke: one event per spoken word, the active word coloured from its start to the next word', () => {
    const ass = buildAss([cue], DEFAULT_TEMPLATE, video);
    const active = '{\\1c&H00D4FF&}'; // #FFD400 as ASS BGR
    expect(DEFAULT_TEMPLATE.colors.active).toBe('#FFD400');
    expect(events(ass)).toEqual([
      ['0:00:01.00', '0:00:01.40', `${active}ASK{\\r} NOT WHAT\\NYOUR`],
      ['0:00:01.40', '0:00:01.90', `ASK ${active}NOT{\\r} WHAT\\NYOUR`],
      ['0:00:01.90', '0:00:02.30', `ASK NOT ${active}WHAT{\\r}\\NYOUR`],
      ['0:00:02.30', '0:00:02.80', `ASK NOT WHAT\\N${active}YOUR{\\r}`],
    ]);
  });

  it('pop: the active word is also scaled up', () => {
    const ass = buildAss([cue], template('bold-pop'), video);
    const lines = events(ass);
    expect(lines).toHaveLength(4);
    expect(lines[1]![2]).toContain('{\\1c&H4BE32B&\\fscx125\\fscy125}NOT{\\r}');
  });

  it('none: one event per phrase with no overrides, in the original case', () => {
    const ass = buildAss([cue], template('minimal'), video);
    expect(events(ass)).toEqual([['0:00:01.00', '0:00:02.80', 'ask not what your']]);
  });

  it('box: a lower-layer pill in the box colour behind the spoken word, the text layer above it', () => {
    const t = template('highlight-box');
    const lines = dialogues(buildAss([cue], t, video));
    expect(lines).toHaveLength(8);
    const [pill, text] = [lines[2]!, lines[3]!];
    expect(pill.startsWith('Dialogue: 0,0:00:01.40,0:00:01.90,')).toBe(true);
    expect(text.startsWith('Dialogue: 1,0:00:01.40,0:00:01.90,')).toBe(true);
    const box = '&HF72F7B&'; // #7B2FF7
    expect(pill).toContain(`{\\1c${box}\\3c${box}\\bord23\\shad0\\blur0\\alpha&HFF&}ASK {\\alpha&H00&}NOT{\\alpha&HFF&} WHAT\\NYOUR`);
    expect(text).toContain('ASK {\\1c&HFFFFFF&\\bord0\\shad0}NOT{\\r} WHAT\\NYOUR');
  });

  it('typewriter: words not yet spoken are laid out but invisible', () => {
    const ass = buildAss([cue], template('typewriter'), video);
    expect(events(ass)[1]![2]).toBe('ask {\\1c&H66E0FF&}not{\\r} {\\alpha&HFF&}what{\\r} {\\alpha&HFF&}your{\\r}');
    expect(events(ass)[3]![2]).toBe('ask not what {\\1c&H66E0FF&}your{\\r}');
  });

  it('glow: every event opens with the blur, and it is restored after the highlight', () => {
    const t = template('neon');
    const ass = buildAss([cue], t, video);
    expect(events(ass)[0]![2]).toBe('{\\blur9}{\\1c&HFFF23D&}ASK{\\r\\blur9} NOT WHAT\\NYOUR');
  });

  it('lineBox: BorderStyle 3 with the band colour as outline and back colour', () => {
    const style = styleFields(buildAss([cue], template('subtitle'), video));
    expect(style[15]).toBe('3');
    expect(style[5]).toBe('&H30000000');
    expect(style[6]).toBe('&H30000000');
    expect(styleFields(buildAss([cue], DEFAULT_TEMPLATE, video))[15]).toBe('1');
  });

  it('shows a phrase longer than the template holds as consecutive pages', () => {
    const long: CaptionCue = { start: 0, end: 3, words: steady(['a', 'b', 'c', 'd'], 0) };
    const ass = buildAss([long], template('bold-pop'), video); // 2 words per page
    expect(events(ass).map((e) => [e[0], e[1], e[2].replace(/\{[^}]*\}/g, '')])).toEqual([
      ['0:00:00.00', '0:00:00.40', 'A B'], ['0:00:00.40', '0:00:00.80', 'A B'],
      ['0:00:00.80', '0:00:01.20', 'C D'], ['0:00:01.20', '0:00:03.00', 'C D'],
    ]);
  });

  it('escapes braces and backslashes so spoken text cannot inject override tags', () => {
    expect(escapeAssText('{\\b1}x')).toBe('\\{\\\u2060b1\\}x');
    expect(escapeAssText('a\\N b\n c')).toBe('a\\\u2060N b c');
    const ass = buildAss([{ start: 0, end: 1, words: words([['{\\fs200}big', 0, 1]]) }], template('minimal'), video);
    expect(events(ass)[0]![2]).toBe('\\{\\\u2060fs200\\}big');
  });

  it('keeps captions out of the bottom 15% and away from the right edge', () => {
    for (const t of TEMPLATES) {
      for (const size of [video, { width: 360, height: 640 }]) {
        const style = styleFields(buildAss([cue], t, size));
        const [marginL, marginR, marginV] = style.slice(19, 22).map(Number) as [number, number, number];
        expect(marginR).toBeGreaterThanOrEqual(0.08 * size.width);
        expect(marginL).toBe(marginR);
        if (t.position.alignment === 'bottom') expect(marginV).toBeGreaterThanOrEqual(0.15 * size.height);
        expect(safeMargins(t, size)).toEqual([marginL, marginR, marginV]);
      }
    }
  });

  it('maps template alignment to ASS numpad alignment', () => {
    expect(styleFields(buildAss([cue], DEFAULT_TEMPLATE, video))[18]).toBe('2');
    const middle: CaptionTemplate = { ...DEFAULT_TEMPLATE, position: { marginV: 300, alignment: 'middle' } };
    const top: CaptionTemplate = { ...DEFAULT_TEMPLATE, position: { marginV: 20, alignment: 'top' } };
    expect(styleFields(buildAss([cue], middle, video)).slice(18, 22)).toEqual(['5', '108', '108', '0']);
    expect(styleFields(buildAss([cue], top, video)).slice(18, 22)).toEqual(['8', '108', '108', '192']);
  });

  it('writes ASS times in centiseconds and skips spans shorter than one', () => {
    expect(assTime(3723.456)).toBe('1:02:03.46');
    const ass = buildAss([{ start: 0, end: 1, words: words([['a', 0, 0.001], ['b', 0.002, 1]]) }], DEFAULT_TEMPLATE, video);
    expect(events(ass)).toHaveLength(1);
  });

  it('Chinese and Japanese: words joined without spaces, phrases ended at 。，！？, no line starting with a closing mark', () => {
    const zh = segmentWords('我们今天要讨论国际化和本地化的问题，以及为什么它们如此重要。你觉得呢？好的！').map((w) => w.text);
    const ws = steady(zh, 0);
    const cues = buildCues(ws, { start: 0, end: 20 }, { wordsPerCue: 6 });
    // A phrase ends at the comma and at each sentence mark.
    for (const c of cues) expect(c.words.slice(0, -1).some((w) => /[，。！？]$/.test(w.text))).toBe(false);
    expect(cues.map((c) => c.words[c.words.length - 1]!.text)).toEqual(expect.arrayContaining(['问题，', '重要。', '呢？', '好的！']));
    for (const t of [DEFAULT_TEMPLATE, template('bold-pop'), template('minimal')]) {
      const ass = buildAss(cues, t, video);
      const shown = events(ass).map((e) => e[2].replace(/\{[^}]*\}/g, ''));
      for (const text of shown) {
        expect(text).not.toMatch(/ /);
        for (const line of text.split('\\N')) expect(line).not.toMatch(/^[，。！？、）」]/);
      }
      // Every character said is shown, in order.
      const pages = new Set(shown);
      expect([...pages].join('').replace(/\\N/g, '')).toContain('我们今天要讨论国际化');
    }
    // Lines by width, not by word count: the six words of the first page fit one line of the default template.
    const first = events(buildAss(cues, DEFAULT_TEMPLATE, video))[0]![2].replace(/\{[^}]*\}/g, '');
    expect(first).toBe('我们今天要讨论国际化');
    // A Latin brand name inside Chinese keeps no spaces around it, as Whisper wrote it.
    const mixed = buildAss([{ start: 0, end: 1, words: words([['我用', 0, 0.3], ['iPhone', 0.3, 0.6], ['拍照', 0.6, 1]]) }], template('minimal'), video);
    expect(events(mixed)[0]![2].replace(/\{[^}]*\}/g, '')).toBe('我用iPhone拍照');
  });

  it('builds cues and ASS that agree on phrase size for every template', () => {
    for (const t of TEMPLATES) {
      const cues = buildCues(steady(['one', 'two', 'three', 'four', 'five', 'six', 'seven'], 0), { start: 0, end: 5 }, { wordsPerCue: wordsPerCueFor(t) });
      for (const c of cues) expect(c.words.length).toBeLessThanOrEqual(t.wordsPerLine * t.maxLines);
    }
  });
});
