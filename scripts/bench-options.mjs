#!/usr/bin/env node
// `npm run bench:options` (also the last part of `npm run bench`): what each rendering option of spec 4.2
// costs. One 30 s range of the 10-minute 1080p bench source is rendered at 1080x1920 through the real
// renderer (renderClip with a RenderPlan, as the orchestrator builds it) once plain (fill crop + Karaoke
// captions) and once per option, then with everything on. Prints a Markdown table (also written to
// bench-out/options.md) for docs/benchmarks.md. Each render is timed alone; the machine is otherwise idle.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSource } from './bench-source.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'bench-out');
mkdirSync(out, { recursive: true });
const dist = (p) => import(path.join(root, 'dist', p));
const ffmpeg = process.env.SHORTS_FFMPEG ?? 'ffmpeg';
const now = () => performance.now() / 1000;
const sharedModel = path.resolve(root, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');
if (!process.env.SHORTS_WHISPER_MODEL && existsSync(sharedModel)) process.env.SHORTS_WHISPER_MODEL = sharedModel;

const source = benchSource(root, out, ffmpeg);
const { probeMedia } = await dist('media/probe.js');
const { renderClip } = await dist('media/render.js');
const { planReframe } = await dist('pipeline/reframe/reframe.js');
const { buildCues, buildAss, captionEmoji } = await dist('pipeline/captions/captions.js');
const { withOverlays } = await dist('pipeline/render/overlays.js');
const { buildOutroAss, outroLine, outroStingPath } = await dist('pipeline/render/outro.js');
const { createTranscriber } = await dist('pipeline/transcribe/transcribe.js');
const { DEFAULT_TEMPLATE, TEMPLATES, fontsDir } = await dist('catalog/templates.js');
const { musicCatalog, musicFilePath } = await dist('catalog/music.js');
const { gameVideoCatalog, gameVideoFilePath } = await dist('catalog/game-videos.js');
const { memeHookCatalog, memeHookFilePath } = await dist('catalog/meme-hooks.js');
const { measureIntegratedLoudness } = await dist('media/speech-loudness.js');
const { renderSettingsFromEnv } = await dist('engine/render-settings.js');
const settings = renderSettingsFromEnv({});

const { info } = await probeMedia(source);
const clip = { start: 100, end: 130 };
const D = clip.end - clip.start;
const W = 1080, H = 1920;
const transcript = await createTranscriber({ dataDir: path.join(out, 'data-options') }).transcribe({ mediaPath: source, range: clip, language: 'en' });
const template = DEFAULT_TEMPLATE;
const wordsPerCue = template.wordsPerLine * template.maxLines;

/** Captions (and optionally the hook/CTA overlays) for a content area of `size`, written to an ASS file. */
function captionsFile(name, size, overlays) {
  const base = buildAss(buildCues(transcript.words, clip, { wordsPerCue }), template, size);
  const ass = overlays ? withOverlays(base, { hookTitle: 'The one habit that changed everything', cta: 'Follow for part 2', clipDuration: D }, size) : base;
  const file = path.join(out, `options-${name}.ass`);
  writeFileSync(file, ass);
  return { assPath: file, fontsDir: fontsDir() };
}

/** Emoji Accent: its own ASS, plus the emoji images the captions stage picks for the phrases. */
function emojiCaptions() {
  const accent = TEMPLATES.find((t) => t.emoji);
  const cues = buildCues(transcript.words, clip, { wordsPerCue: accent.wordsPerLine * accent.maxLines });
  const file = path.join(out, 'options-emoji.ass');
  writeFileSync(file, buildAss(cues, accent, { width: W, height: H }));
  return { captions: { assPath: file, fontsDir: fontsDir(), emoji: captionEmoji(cues, accent, { width: W, height: H }) }, accent };
}
const emoji = emojiCaptions();

const fullReframe = await planReframe({ mediaPath: source, info, range: clip, layout: 'fill', output: { width: W, height: H } });
const halfReframe = await planReframe({ mediaPath: source, info, range: clip, layout: 'fill', output: { width: W, height: H / 2 } });
const track = musicCatalog().items[0];
const game = gameVideoCatalog().items[0];
const memeItem = memeHookCatalog().items.find((m) => m.name === 'Plot Twist') ?? memeHookCatalog().items[0];
const speechLufs = await measureIntegratedLoudness(source, clip);
const outroAss = path.join(out, 'options-outro.ass');
writeFileSync(outroAss, buildOutroAss({ text: outroLine(null, 'en'), handle: '@shortwright', seconds: 2, textColor: template.colors.text,
  accentColor: template.colors.active, outlineColor: template.colors.outline }, { width: W, height: H }));

const plan = (name, extra = {}) => ({
  version: 1,
  input: { path: source, start: clip.start, end: clip.end, width: info.width, height: info.height, hasAudio: info.hasAudio },
  output: { path: path.join(out, `options-${name}.mp4`), width: W, height: H, preset: settings.preset, crf: settings.crf, x264Params: settings.x264Params },
  reframe: fullReframe,
  background: { blur: true, color: '#000000' },
  captions: captionsFile(name, { width: W, height: H }, false),
  ...extra,
});
const music = { path: musicFilePath(track), volume: 10, trackLufs: track.loudnessLufs, speechLufs };
const gameVideo = { path: gameVideoFilePath(game), offset: 3, duration: game.duration };
const memeHook = { path: memeHookFilePath(memeItem), seconds: memeItem.duration, fps: info.fps, hasAudio: true };
const outro = { seconds: 2, fps: info.fps, text: outroLine(null, 'en'), handle: '@shortwright', imagePath: null, stingPath: outroStingPath(), assPath: outroAss, fontsDir: fontsDir() };

const variants = [
  ['plain: fill crop following the face + Karaoke captions', plan('plain')],
  [`Emoji Accent template instead (${emoji.captions.emoji.length} emoji images overlaid)`, plan('emoji', { captions: emoji.captions })],
  ['+ hook title + CTA banner (same libass pass)', plan('overlays', { captions: captionsFile('overlays', { width: W, height: H }, true) })],
  ['+ music (loudness-matched, ducked, faded)', plan('music', { music })],
  ['+ split-screen gameplay', plan('game', { reframe: halfReframe, captions: captionsFile('game', { width: W, height: H / 2 }, false), gameVideo })],
  ['+ outro card (2 s) with the bell', plan('outro', { outro })],
  [`+ meme intro (${memeItem.duration} s)`, plan('meme', { memeHook })],
  ['layout fit on a blurred background', plan('fit', { reframe: { ...fullReframe, layout: 'fit' } })],
  ['everything above at once (fill, split screen, overlays, music, meme, outro)', plan('all', {
    reframe: halfReframe, captions: captionsFile('all', { width: W, height: H / 2 }, true), gameVideo, music, memeHook, outro,
  })],
];

const rows = [];
let plainWall = 0;
for (const [label, p] of variants) {
  const t0 = now();
  await renderClip(p, {});
  const wall = now() - t0;
  if (!plainWall) plainWall = wall;
  const seconds = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', p.output.path]).toString());
  rows.push(`| ${label} | ${wall.toFixed(1)} s | ${(wall / plainWall).toFixed(2)}x | ${(seconds / wall).toFixed(2)}x |`);
  console.error(`${label}: ${wall.toFixed(1)} s`);
}

const report = [
  `### npm run bench:options — ${new Date().toISOString().slice(0, 10)}`,
  '',
  `Machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${execFileSync(ffmpeg, ['-version']).toString().split('\n')[0]}`,
  `One ${D} s range (${clip.start}-${clip.end} s) of ${path.relative(root, source)} rendered to 1080x1920 with the default encoder settings; music "${track.name}", gameplay "${game.name}", meme "${memeItem.name}". \"Output seconds per wall second\" counts the meme and outro seconds too.`,
  '',
  '| Render | Wall | vs plain | Output seconds per wall second |',
  '|---|---|---|---|',
  ...rows,
  '',
];
writeFileSync(path.join(out, 'options.md'), report.join('\n'));
console.log(report.join('\n'));
