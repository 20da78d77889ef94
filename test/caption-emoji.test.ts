// Emoji accents (the "Emoji Accent" template): the keyword table, the overlay plan, the ffmpeg graph
// (images read inside the graph, no extra inputs), and real renders checked in their pixels: the emoji's
// colour appears above the phrase that says the keyword, while it is up, and nowhere else.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATES, fontsDir, type CaptionTemplate } from '../src/catalog/templates.js';
import { buildFilterGraph, buildRenderArgs } from '../src/media/ffmpeg-args.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { buildAss, buildCues, captionEmoji, wordsPerCueFor } from '../src/pipeline/captions/captions.js';
import { EMOJI_KEYWORDS, emojiDir, emojiFileName, emojiForPhrase, emojiForWord, wordStems } from '../src/pipeline/captions/emoji.js';
import { translatedCues } from '../src/pipeline/captions/translate.js';
import type { CaptionCue } from '../src/domain/captions.js';
import type { Word } from '../src/domain/transcript.js';
import { video } from './helpers/media.js';
import { frameAt } from './helpers/frames.js';

const W = 270, H = 480;
const accent = TEMPLATES.find((t) => t.emoji)!;
/** The dominant yellow of the money bag (assets/emoji/1f4b0.png). */
const BAG = [252, 203, 44] as const;

let dir: string, source: string, gameplay: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'caption-emoji-'));
  source = video({ duration: 5, width: 360, height: 640, picture: 'color=c=0x404040:s=360x640:r=25' });
  gameplay = video({ duration: 5, width: 320, height: 180, picture: 'color=c=0x2040A0:s=320x180:r=25' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Three phrases: no keyword, "money" (💰), no keyword; pauses between them end each phrase. */
const SPOKEN: Word[] = [
  ...['Welcome', 'back', 'everyone.'].map((text, i) => ({ text, start: 0.2 + i * 0.3, end: 0.45 + i * 0.3, probability: 1 })),
  ...['We', 'made', 'real', 'money', 'today.'].map((text, i) => ({ text, start: 1.5 + i * 0.3, end: 1.75 + i * 0.3, probability: 1 })),
  ...['See', 'you', 'soon.'].map((text, i) => ({ text, start: 3.5 + i * 0.3, end: 3.75 + i * 0.3, probability: 1 })),
];
const CLIP = { start: 0, end: 5 };

describe('emoji keywords', () => {
  it('matches inflected, capitalised and punctuated words to their emoji, and leaves plain words alone', () => {
    expect(emojiForWord('Money,')).toBe('💰');
    expect(emojiForWord('LAUGHING')).toBe('😂');
    expect(emojiForWord('winners')).toBe('🏆');
    expect(emojiForWord('winning')).toBe('🏆');
    expect(emojiForWord('ideas')).toBe('💡');
    expect(emojiForWord('loved')).toBe('❤');
    expect(emojiForWord('parties')).toBe('🎉');
    expect(emojiForWord('brain’s')).toBe('🧠');
    expect(emojiForWord('rocket')).toBe('🚀');
    expect(emojiForWord('world')).toBe('🌍');
    for (const plain of ['window', 'like', 'the', 'and', 'kind', 'good', 'winter-ish', '']) expect(emojiForWord(plain), plain).toBeNull();
    expect(wordStems('stopped')).toContain('stop');
    expect(emojiForPhrase(['so', 'much', 'fun', 'and', 'money'])).toEqual({ emoji: '🎉', wordIndex: 2 });
    expect(emojiForPhrase(['nothing', 'here'])).toBeNull();
  });

  it('lists every word once, and ships a 128x128 PNG with its licence for every emoji', () => {
    const words = EMOJI_KEYWORDS.flatMap((e) => e.words);
    expect(new Set(words).size).toBe(words.length);
    expect(EMOJI_KEYWORDS.length).toBeGreaterThanOrEqual(50);
    const files = EMOJI_KEYWORDS.map((e) => emojiFileName(e.emoji));
    expect(new Set(files).size).toBe(files.length);
    expect(readdirSync(emojiDir()).filter((f) => f.endsWith('.png')).sort()).toEqual([...files].sort());
    for (const f of ['README.md', 'OFL.txt']) expect(existsSync(path.join(emojiDir(), f))).toBe(true);
    const probe = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height,pix_fmt', '-of', 'csv=p=0', path.join(emojiDir(), '1f4b0.png')], { encoding: 'utf8' });
    expect(probe.trim()).toBe('128,128,rgba');
  });
});

describe('emoji overlays', () => {
  it('only templates with emoji get them: one per phrase with a keyword, above its text, for the phrase', () => {
    const cues = buildCues(SPOKEN, CLIP, { wordsPerCue: wordsPerCueFor(accent) });
    for (const t of TEMPLATES.filter((x) => !x.emoji)) expect(captionEmoji(cues, t, { width: W, height: H })).toEqual([]);
    const overlays = captionEmoji(cues, accent, { width: W, height: H });
    expect(overlays).toHaveLength(1);
    const [e] = overlays;
    expect(e!.emoji).toBe('💰');
    expect(e!.path).toBe(path.join(emojiDir(), '1f4b0.png'));
    expect([e!.start, e!.end]).toEqual([cues[1]!.start, cues[1]!.end]);
    expect(e!.size).toBe(Math.round(accent.emoji!.size * W / 1080));
    expect(Math.abs(e!.x + e!.size / 2 - W / 2)).toBeLessThanOrEqual(1);
    // Above the caption block, which sits above the bottom margin; inside the frame.
    expect(e!.y).toBeGreaterThan(H * 0.1);
    expect(e!.y + e!.size).toBeLessThan(H * 0.85 - accent.font.size * W / 1080);
  });

  it('does not repeat the emoji of the phrase just before', () => {
    const words = ['money.', 'cash.', 'fire.'].map((text, i) => ({ text, start: i, end: i + 0.5, probability: 1 }));
    const cues = buildCues(words, { start: 0, end: 4 }, { wordsPerCue: 6 });
    expect(captionEmoji(cues, accent, { width: W, height: H }).map((e) => e.emoji)).toEqual(['💰', '🔥']);
  });

  it('finds the emoji of a translated phrase in what was spoken', () => {
    const spoken = [{ text: 'Money', start: 0, end: 0.5, probability: 1 }, { text: 'matters.', start: 0.5, end: 1, probability: 1 }];
    const cues = buildCues(spoken, { start: 0, end: 2 }, { wordsPerCue: 6 });
    const translated = translatedCues(cues, ['El dinero importa.'], 6);
    expect(captionEmoji(translated, accent, { width: W, height: H }).map((e) => [e.emoji, e.start, e.end])).toEqual([['💰', cues[0]!.start, cues[0]!.end]]);
  });

  it('reads the images inside the graph (movie=) after libass, adding no ffmpeg input', () => {
    const plan = renderPlan('args.mp4', []);
    const withEmoji = renderPlan('args.mp4', [{ path: '/x/1f4b0.png', start: 1.5, end: 3, x: 100, y: 200, size: 45 }]);
    const inputs = (args: string[]) => args.filter((a) => a === '-i').length;
    expect(inputs(buildRenderArgs(withEmoji))).toBe(inputs(buildRenderArgs(plan)));
    const graph = buildFilterGraph(withEmoji);
    expect(graph).toContain(`,ass=filename=`);
    expect(graph).toContain(`[vout_cap0];movie=filename=/x/1f4b0.png,scale=45:45[vout_emoji0];[vout_cap0][vout_emoji0]overlay=x=100:y='200-11*pow(max(0,1-(t-1.5)/0.2),2)':eval=frame:enable='between(t,1.5,3)'[vout]`);
    expect(graph.indexOf('ass=')).toBeLessThan(graph.indexOf('movie='));
  });

  it('renders the emoji above the keyword phrase while it is up, and nowhere else', async () => {
    const file = await render('full.mp4', { width: W, height: H });
    const [e] = captionEmoji(buildCues(SPOKEN, CLIP, { wordsPerCue: wordsPerCueFor(accent) }), accent, { width: W, height: H });
    const during = bag(frameOf(file, 2.4, H), H);
    // Most of the bag's area is its yellow; all of it inside the emoji's square.
    expect(during.inside(e!)).toBeGreaterThan(e!.size * e!.size * 0.25);
    expect(during.outside(e!)).toBe(0);
    for (const t of [0.5, 4.0]) expect(bag(frameOf(file, t, H), H).total, `t=${t}`).toBe(0);
  });

  it('split screen: the emoji is placed in the captioned top half and never crosses the seam', async () => {
    const half = { width: W, height: H / 2 };
    const file = await render('split.mp4', half, { path: gameplay, offset: 0, duration: 5 });
    const [e] = captionEmoji(buildCues(SPOKEN, CLIP, { wordsPerCue: wordsPerCueFor(accent) }), accent, half);
    expect(e!.y + e!.size).toBeLessThan(H / 2);
    const during = bag(frameOf(file, 2.4, H), H);
    expect(during.inside(e!)).toBeGreaterThan(e!.size * e!.size * 0.25);
    expect(during.outside(e!)).toBe(0);
  });
});

function renderPlan(name: string, emoji: NonNullable<NonNullable<RenderPlan['captions']>['emoji']>, assPath = path.join(dir, 'unused.ass')): RenderPlan {
  return {
    version: 1,
    input: { path: source, start: CLIP.start, end: CLIP.end, width: 360, height: 640, hasAudio: false },
    output: { path: path.join(dir, name), width: W, height: H, preset: 'ultrafast', crf: 18 },
    reframe: { layout: 'fill', cropWidth: 360, cropHeight: 640, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
    background: { blur: false, color: '#404040' },
    captions: { assPath, fontsDir: fontsDir(), ...(emoji.length ? { emoji } : {}) },
  };
}

/** The accent template over the generated clip, captions (and emoji) planned for `picture`. */
async function render(name: string, picture: { width: number; height: number }, gameVideo?: RenderPlan['gameVideo']): Promise<string> {
  const t: CaptionTemplate = accent;
  const cues: CaptionCue[] = buildCues(SPOKEN, CLIP, { wordsPerCue: wordsPerCueFor(t) });
  const ass = path.join(dir, `${name}.ass`);
  writeFileSync(ass, buildAss(cues, t, picture));
  const plan = renderPlan(name, captionEmoji(cues, t, picture), ass);
  if (gameVideo) {
    plan.gameVideo = gameVideo;
    plan.reframe = { ...plan.reframe, cropWidth: 360, cropHeight: 320 };
  }
  await renderClip(plan);
  return plan.output.path;
}

function frameOf(file: string, t: number, height: number): Buffer {
  const frame = frameAt(file, t);
  expect(frame.length).toBe(W * height * 3);
  return frame;
}

/** Pixels of the money bag's yellow, counted inside an emoji's square (2 px of slack) and outside it. */
function bag(frame: Buffer, height: number) {
  const hits: [number, number][] = [];
  for (let y = 0; y < height; y++) for (let x = 0; x < W; x++) {
    const i = (y * W + x) * 3;
    if (BAG.every((c, k) => Math.abs(frame[i + k]! - c) <= 36)) hits.push([x, y]);
  }
  const within = (e: { x: number; y: number; size: number }, [x, y]: [number, number]) => x >= e.x - 2 && x < e.x + e.size + 2 && y >= e.y - 2 && y < e.y + e.size + 2;
  return {
    total: hits.length,
    inside: (e: { x: number; y: number; size: number }) => hits.filter((p) => within(e, p)).length,
    outside: (e: { x: number; y: number; size: number }) => hits.filter((p) => !within(e, p)).length,
  };
}
