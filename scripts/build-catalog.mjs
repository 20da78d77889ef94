#!/usr/bin/env node
// Builds the default catalogs. Music (assets/catalog/music) from freely licensed Debian game-music
// packages, reproducibly: `npm run catalog`. For every track it downloads the package with
// `apt-get download` (no root, only the Debian mirror), re-encodes a short excerpt to mono Opus (the
// catalog ships in the npm package, so it stays small), measures the duration with ffprobe and the
// integrated loudness with ebur128 (the mix uses it to set the music relative to the voice), draws a
// waveform preview PNG, and records licence, attribution and source package/version in manifest.json.
// Entries an operator added by hand (source.kind "operator") are kept as they are. Game videos
// (assets/catalog/game-videos) are generated offline with FFmpeg; see buildGameVideos below.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MUSIC_DIR = path.join(ROOT, 'assets', 'catalog', 'music');
const FFMPEG = process.env.SHORTS_FFMPEG || 'ffmpeg';
const FFPROBE = process.env.SHORTS_FFPROBE || 'ffprobe';

/** Excerpt length: long enough for a short (the mix loops it when the clip is longer). */
const MAX_SECONDS = 60;
/** Tracks up to this long are kept whole, so a seamless game loop stays seamless when the mix loops it. */
const KEEP_WHOLE_SECONDS = 75;
const FADE_OUT_SECONDS = 2;
const BITRATE = '48k';

const MATYAS = 'Music by Eric Matyas, www.soundimage.org (as shipped in Debian\'s davegnukem-data)';
// davegnukem-data's debian/copyright covers these files by its "Files: *" stanza; the composer's own
// terms (soundimage.org) allow free use with this attribution.
const MATYAS_LICENCE = 'Expat or GPL-2 or GPL-3 (Debian davegnukem-data debian/copyright, Files: *); composer terms: free use with attribution';
const SINGULARITY = 'Music by Max McCracken, from Endgame: Singularity (emhsoft.com/singularity)';

const SOURCES = [
  {
    pkg: 'davegnukem-data',
    dir: 'usr/share/games/davegnukem/music/eric_matyas',
    licence: MATYAS_LICENCE,
    attribution: MATYAS,
    files: [
      '8-Bit-Mayhem.ogg', 'Dystopic-Mayhem.ogg', 'Escape_Looping.ogg', 'Funky-Gameplay_Looping.ogg',
      'Insane-Gameplay_Looping.ogg', 'Mad-Scientist_Looping.ogg', 'Monkey-Drama.ogg', 'Monster-Street-Fighters.ogg',
      'Monsters-in-Bell-Bottoms_Looping.ogg', 'Retro-Frantic_V001_Looping.ogg', 'Techno-Caper.ogg',
      'Techno-Gameplay_Looping.ogg', 'The-Darkness-Below_Looping.ogg',
    ],
  },
  {
    pkg: 'singularity-music',
    dir: 'usr/share/games/singularity/music',
    licence: 'CC-BY-SA-3.0',
    attribution: SINGULARITY,
    files: ['A New Journey.ogg', 'Awakening.ogg', 'Through Space.ogg'],
  },
];

/** "Funky-Gameplay_Looping.ogg" -> "Funky Gameplay"; names are what GET /music lists and musicName matches. */
function trackName(file) {
  return path.basename(file, path.extname(file)).replace(/_Looping$/, '').replace(/_V\d+/, '').replace(/[-_]+/g, ' ').trim();
}

function slug(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function run(bin, args, opts = {}) {
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
}

export function probeDuration(file) {
  return Number(run(FFPROBE, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).trim());
}

/** Integrated loudness (EBU R128, LUFS) from ffmpeg's ebur128 summary. */
export function integratedLoudness(file) {
  const r = spawnSync(FFMPEG, ['-hide_banner', '-nostats', '-i', file, '-map', '0:a:0', '-af', 'ebur128', '-f', 'null', '-'],
    { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`ffmpeg ebur128 failed on ${file}: ${r.stderr.slice(-300)}`);
  return parseIntegrated(r.stderr);
}

function parseIntegrated(stderr) {
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const m = /I:\s+(-?[\d.]+|-inf)\s+LUFS/.exec(summary);
  if (!m) throw new Error('ebur128 printed no integrated loudness');
  return m[1] === '-inf' ? -70 : Number(m[1]);
}

function download(pkg, workDir) {
  // apt-get download writes into the current directory; it needs no root, only the Debian mirror.
  run('apt-get', ['download', pkg], { cwd: workDir });
  const deb = readdirSync(workDir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${pkg} produced no .deb`);
  const debPath = path.join(workDir, deb);
  const version = run('dpkg-deb', ['-f', debPath, 'Version']).trim();
  const tree = path.join(workDir, pkg);
  mkdirSync(tree, { recursive: true });
  run('dpkg-deb', ['-x', debPath, tree]);
  return { version, tree };
}

function encode(src, out, sourceSeconds) {
  const whole = sourceSeconds <= KEEP_WHOLE_SECONDS;
  const args = ['-hide_banner', '-v', 'error', '-y', '-i', src, '-map', '0:a:0', '-vn', '-map_metadata', '-1'];
  if (!whole) {
    args.push('-t', String(MAX_SECONDS), '-af', `afade=t=out:st=${MAX_SECONDS - FADE_OUT_SECONDS}:d=${FADE_OUT_SECONDS}`);
  }
  args.push('-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', BITRATE, '-f', 'ogg', out);
  run(FFMPEG, args);
}

function preview(audio, png) {
  run(FFMPEG, ['-hide_banner', '-v', 'error', '-y', '-i', audio, '-filter_complex',
    'aformat=channel_layouts=mono,showwavespic=s=400x100:colors=0x35C2FF', '-frames:v', '1', png]);
}

function readManifest() {
  const file = path.join(MUSIC_DIR, 'manifest.json');
  if (!existsSync(file)) return { version: 1, kind: 'music', items: [] };
  return JSON.parse(readFileSync(file, 'utf8'));
}

function main() {
  mkdirSync(path.join(MUSIC_DIR, 'previews'), { recursive: true });
  const previous = readManifest();
  const operatorItems = previous.items.filter((i) => i.source?.kind !== 'debian');
  const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-catalog-'));
  const items = [];
  try {
    for (const src of SOURCES) {
      console.log(`apt-get download ${src.pkg}`);
      const { version, tree } = download(src.pkg, work);
      for (const file of src.files) {
        const original = path.join(tree, src.dir, file);
        if (!existsSync(original)) throw new Error(`${src.pkg} ${version} has no ${src.dir}/${file}`);
        const name = trackName(file);
        const base = slug(name);
        const audio = `${base}.opus`;
        const png = `previews/${base}.png`;
        encode(original, path.join(MUSIC_DIR, audio), probeDuration(original));
        preview(path.join(MUSIC_DIR, audio), path.join(MUSIC_DIR, png));
        const duration = Math.round(probeDuration(path.join(MUSIC_DIR, audio)) * 1000) / 1000;
        const loudnessLufs = integratedLoudness(path.join(MUSIC_DIR, audio));
        items.push({
          name, file: audio, preview: png, duration, loudnessLufs,
          licence: src.licence, attribution: src.attribution,
          source: { kind: 'debian', package: src.pkg, version, path: `/${src.dir}/${file}` },
        });
        console.log(`  ${name}: ${duration} s, ${loudnessLufs} LUFS`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const names = new Set(items.map((i) => i.name));
  const manifest = { version: 1, kind: 'music', items: [...items, ...operatorItems.filter((i) => !names.has(i.name))] };
  writeFileSync(path.join(MUSIC_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${manifest.items.length} tracks in ${path.relative(ROOT, MUSIC_DIR)}/manifest.json`);
}

// ---------------------------------------------------------------------------------------------
// Game videos (GET /game-videos): the bottom half of a split-screen short. The default catalog is
// generated by this project with FFmpeg's own generative sources (cellular automata, fractals,
// gradients), so it needs no download and its licence is the project's choice: CC0. Each loop is
// GAME_SECONDS long at 540x480 (the 9:8 aspect of half a 9:16 frame; the render scales it to
// 1080x960), silent (gameplay is muted in the render anyway), CRF 30: a few hundred KB each.
// The render loops the file and starts it at a random offset, so a loop needs no particular length.

const GAME_DIR = path.join(ROOT, 'assets', 'catalog', 'game-videos');
const GAME_SECONDS = 20;
const GAME_SIZE = { width: 540, height: 480 };
const GAME_LICENCE = 'CC0-1.0';
const gameAttribution = (filter) => `Generated by the shortwright project with FFmpeg's ${filter} source (scripts/build-catalog.mjs); no attribution required`;

/** name, FFmpeg source filter, full lavfi graph (all at 30 fps, 540x480; small grids scaled up sharply). */
const GAME_RECIPES = [
  { name: 'Neon Life', filter: 'life',
    graph: 'life=s=90x80:r=30:rule=B3/S23:mold=8:life_color=#00ff88:death_color=#101828:mold_color=#003a30:ratio=0.12:seed=7,scale=540:480:flags=neighbor' },
  { name: 'Coral HighLife', filter: 'life',
    graph: 'life=s=90x80:r=30:rule=B36/S23:mold=6:life_color=#ff5c8a:death_color=#1a0f1f:mold_color=#4a1838:ratio=0.2:seed=21,scale=540:480:flags=neighbor' },
  { name: 'Rule 110 Rain', filter: 'cellauto',
    graph: "cellauto=s=135x120:r=30:rule=110:random_fill_ratio=0.5:scroll=1:seed=9,scale=540:480:flags=neighbor,lutrgb=r='val*0.2':g='val*0.9':b='val'" },
  { name: 'Rule 30 Embers', filter: 'cellauto',
    graph: "cellauto=s=135x120:r=30:rule=30:random_fill_ratio=0.02:scroll=1:seed=4,scale=540:480:flags=neighbor,lutrgb=r='val':g='val*0.55':b='val*0.1'" },
  { name: 'Sierpinski Carpet', filter: 'sierpinski',
    graph: 'sierpinski=s=540x480:r=30:type=carpet:jump=40:seed=3' },
  { name: 'Sierpinski Triangle', filter: 'sierpinski',
    graph: "sierpinski=s=540x480:r=30:type=triangle:jump=30:seed=11,lutrgb=r='val*0.5':g='val*0.8':b='val'" },
  { name: 'Gradient Flow', filter: 'gradients',
    graph: 'gradients=s=540x480:r=30:c0=0xff3d7f:c1=0x3dd9ff:c2=0xffd93d:c3=0x7a3dff:n=4:speed=0.03:type=radial:seed=5' },
];

function buildGameVideos() {
  mkdirSync(path.join(GAME_DIR, 'previews'), { recursive: true });
  const file = path.join(GAME_DIR, 'manifest.json');
  const previous = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { items: [] };
  const operatorItems = previous.items.filter((i) => i.source?.kind !== 'generated');
  const items = [];
  for (const recipe of GAME_RECIPES) {
    const base = slug(recipe.name);
    const video = `${base}.mp4`;
    const png = `previews/${base}.png`;
    run(FFMPEG, ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', `${recipe.graph},format=yuv420p`,
      '-t', String(GAME_SECONDS), '-c:v', 'libx264', '-preset', 'medium', '-crf', '30', '-g', '60', '-an',
      '-map_metadata', '-1', '-movflags', '+faststart', path.join(GAME_DIR, video)]);
    // Preview: one frame from the middle of the loop at a third of the catalog size (360x320).
    run(FFMPEG, ['-hide_banner', '-v', 'error', '-y', '-ss', String(GAME_SECONDS / 2), '-i', path.join(GAME_DIR, video),
      '-frames:v', '1', '-vf', 'scale=360:320', path.join(GAME_DIR, png)]);
    const duration = Math.round(probeDuration(path.join(GAME_DIR, video)) * 1000) / 1000;
    items.push({
      name: recipe.name, file: video, preview: png, duration, width: GAME_SIZE.width, height: GAME_SIZE.height,
      licence: GAME_LICENCE, attribution: gameAttribution(recipe.filter),
      source: { kind: 'generated', tool: `ffmpeg ${ffmpegVersion()}`, recipe: recipe.graph },
    });
    console.log(`  ${recipe.name}: ${duration} s`);
  }
  const names = new Set(items.map((i) => i.name));
  const manifest = { version: 1, kind: 'gameVideos', items: [...items, ...operatorItems.filter((i) => !names.has(i.name))] };
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${manifest.items.length} game videos in ${path.relative(ROOT, GAME_DIR)}/manifest.json`);
}

function ffmpegVersion() {
  return /ffmpeg version (\S+)/.exec(run(FFMPEG, ['-version']))?.[1] ?? 'unknown';
}

// `npm run catalog` builds every section; `-- music` or `-- game-videos` builds one.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const only = process.argv[2];
  if (only !== undefined && only !== 'music' && only !== 'game-videos') {
    console.error('usage: build-catalog.mjs [music|game-videos]');
    process.exit(2);
  }
  if (only === undefined || only === 'music') main();
  if (only === undefined || only === 'game-videos') buildGameVideos();
}
