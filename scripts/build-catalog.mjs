#!/usr/bin/env node
// Builds the default catalogs. Music (assets/catalog/music) from freely licensed Debian game-music
// packages, reproducibly: `npm run catalog`. For every track it downloads the package with
// `apt-get download` (no root, only the Debian mirror), re-encodes a short excerpt to mono Opus (the
// catalog ships in the npm package, so it stays small), measures the duration with ffprobe and the
// integrated loudness with ebur128 (the mix uses it to set the music relative to the voice), draws a
// waveform preview PNG, and records licence, attribution and source package/version in manifest.json.
// Entries an operator added by hand (source.kind "operator") are kept as they are. Game videos
// (assets/catalog/game-videos) are generated offline with FFmpeg; see buildGameVideos below. Meme
// hooks (assets/catalog/meme-hooks) are made with FFmpeg from Debian sound effects and pictures and
// the project's fonts; see buildMemeHooks below.
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

// ---------------------------------------------------------------------------------------------
// Meme hooks (GET /meme-hooks): 2-4 s intros the render puts full-frame before a short. Each is made
// here, reproducibly, from free Debian material (sound effects of game and desktop sound packages;
// the public-domain and CC0 sample photos of python3-imageio) or FFmpeg's own generators, with the
// project's open-licence fonts (assets/fonts) and the caption moves creators use: punch-in zoom, shake, flash,
// vignette, typewriter text, a sub-bass "boom" on the hit. 720x1280 at 30 fps, H.264 CRF 26 + AAC
// stereo 48 kHz (the render scales them to the output). The sound of each is brought to MEME_LUFS,
// the speech level the render assumes, so a meme is neither drowned by nor much louder than a voice.
// The manifest records every material (package, version, path, licence, copyright) and the filter
// graph, which runs from the project root (font paths are relative to it).

const MEME_DIR = path.join(ROOT, 'assets', 'catalog', 'meme-hooks');
const MEME_W = 720, MEME_H = 1280, MEME_FPS = 30;
const MEME_LUFS = -16;
const PREVIEW_SIZE = '270:480';
const IMAGEIO = 'usr/lib/python3/dist-packages/imageio/resources/images';
const HEROES = 'Heroes sound effects, copyright 1997-2000 Alexandre Duret-Lutz, Romuald Genevois, Alexandre Liverneaux and Philippe Meisburger';
const FROZEN = 'Frozen-Bubble sounds, copyright 2000-2010 The Frozen-Bubble Team';

/** Debian files the memes are made of; licence and copyright as the package's debian/copyright states them. */
const MEME_MATERIALS = {
  astronaut: { pkg: 'python3-imageio', path: `${IMAGEIO}/astronaut.png`, licence: 'public-domain',
    credit: 'Photograph of astronaut Eileen Collins by NASA (public domain), from imageio\'s sample images' },
  cat: { pkg: 'python3-imageio', path: `${IMAGEIO}/chelsea.png`, licence: 'CC0-1.0',
    credit: 'Photograph of Chelsea the cat by Stefan van der Walt (CC0), from imageio\'s sample images' },
  clock: { pkg: 'heroes-sound-effects', path: 'usr/share/games/heroes/sfx/clock01.wav', licence: 'GPL-2.0-or-later', credit: HEROES },
  dramatic: { pkg: 'heroes-sound-effects', path: 'usr/share/games/heroes/sfx/stop.wav', licence: 'GPL-2.0-or-later', credit: HEROES },
  crowd: { pkg: 'heroes-sound-effects', path: 'usr/share/games/heroes/sfx/foule2.wav', licence: 'GPL-2.0-or-later', credit: HEROES },
  dream: { pkg: 'heroes-sound-effects', path: 'usr/share/games/heroes/sfx/dream.wav', licence: 'GPL-2.0-or-later', credit: HEROES },
  yippee: { pkg: 'pingus-data', path: 'usr/share/games/pingus/data/sounds/yipee.wav', licence: 'GPL-2.0-or-later',
    credit: 'Pingus sounds, copyright 1999-2007 Ingo Ruhnke and the Pingus authors' },
  shutter: { pkg: 'sound-theme-freedesktop', path: 'usr/share/sounds/freedesktop/stereo/camera-shutter.oga', licence: 'CC-BY-SA-3.0',
    credit: 'Camera shutter by freesound user horsthorstensen (CC BY-SA 3.0), from the freedesktop.org sound theme' },
  lose: { pkg: 'frozen-bubble-data', path: 'usr/share/games/frozen-bubble/snd/lose.ogg', licence: 'GPL-2.0-only', credit: FROZEN },
  typewriter: { pkg: 'frozen-bubble-data', path: 'usr/share/games/frozen-bubble/snd/typewriter.ogg', licence: 'GPL-2.0-only', credit: FROZEN },
  alert: { pkg: 'monsterz-data', path: 'usr/share/games/monsterz/sound/warning.wav', licence: 'GPL-1.0-or-later',
    credit: 'Alert sound by Mike Kershaw (from Kismet), from Monsterz' },
};

const FONT_LICENCES = {
  'Anton-Regular.ttf': 'OFL-1.1', 'Bangers-Regular.ttf': 'OFL-1.1', 'LuckiestGuy-Regular.ttf': 'Apache-2.0',
  'Montserrat-Black.ttf': 'OFL-1.1', 'BebasNeue-Regular.ttf': 'OFL-1.1',
};

/** A value inside a filter graph: option-level then graph-level escaping (ffmpeg-filters, "Notes on filtergraph escaping"). */
function graphValue(v) {
  return v.replace(/[\\':]/g, (c) => `\\${c}`).replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

const font = (file) => graphValue(`assets/fonts/${file}`);
/** Seconds after `at`, never negative: the clock of an effect that starts at `at`. */
const since = (at, clock = 't') => `max(0,${clock}-${at})`;

/**
 * Caption text shown from `at`, its middle at height `y`; `x` is its left edge (default: centred).
 * `punch` makes it start that much larger and snap to size in ~0.2 s; `pulse` beats its size twice a second.
 */
function caption(fontFile, text, { size, y, at = 0, color = 'white', border = 8, punch = 0.6, pulse = 0, x = '(w-tw)/2' }) {
  const grow = punch ? `*(1+${punch}*exp(-14*${since(at)}))` : '';
  const beat = pulse ? `*(1+${pulse}*abs(sin(2*PI*t)))` : '';
  const enable = at > 0 ? `gte(t,${at})` : null;
  return `drawtext=fontfile=${font(fontFile)}:text=${graphValue(text)}:expansion=none:fontsize='${size}${grow}${beat}'`
    + `:fontcolor=${color}:borderw=${border}:bordercolor=black:shadowx=0:shadowy=${Math.round(border * 0.8)}:shadowcolor=black@0.5`
    + `:x='${x}':y='${y}-th/2'${enable ? `:enable='${enable}'` : ''}`;
}

/**
 * A still picture (input 0) as a 9:16 shot: `crop` picks the part of the photo, upscaled 2x over the
 * output so the zoom stays smooth; `zoom` is an expression of `on` (output frame); the zoom keeps the
 * point (cx, cy) (fractions of the shot) in place; `shake` = { at, amount } shakes the shot after a hit
 * (zoompan needs room to shake in, so zoom past 1 by then).
 */
function shot(crop, zoom, { cx = 0.5, cy = 0.5, shake } = {}) {
  const time = `on/${MEME_FPS}`;
  const jitter = (f) => (shake ? `+${shake.amount}*${f}(on*2.3)*exp(-6*${since(shake.at, time)})*gte(${time},${shake.at})` : '');
  return `[0:v]crop=${crop},scale=${MEME_W * 2}:${MEME_H * 2}:flags=lanczos,setsar=1,`
    + `zoompan=z='${zoom}':x='${cx}*(iw-iw/zoom)${jitter('sin')}':y='${cy}*(ih-ih/zoom)${jitter('cos')}'`
    + `:d=1:s=${MEME_W}x${MEME_H}:fps=${MEME_FPS}`;
}

/** Zoom that snaps from `from` to `to` at `at` (an expression of the output frame `on`). */
const punchZoom = (from, to, at) => `${from}+${to - from}*(1-exp(-16*${since(at, `on/${MEME_FPS}`)}))`;
/** White flash at `at` fading in ~0.25 s. */
const flash = (at, amount = 0.7) => `eq=brightness='${amount}*exp(-12*${since(at)})*gte(t,${at})':eval=frame`;

/**
 * The meme recipes. Input 0 is `picture` (a still, looped) or `generator` (an FFmpeg source),
 * `sounds` are placed at `at` seconds (from `from` seconds into the file, `gain` dB), `booms` are the
 * generated sub-bass hits, `video` is the graph from input 0 to [v], `preview` the time of the preview frame.
 */
const MEME_RECIPES = [
  {
    name: 'Wait For It', seconds: 3, picture: 'astronaut', preview: 1.6,
    sounds: [{ material: 'clock', at: 0 }],
    booms: [],
    // A slow, dark push-in on the face while the clock ticks; the caption beats with it.
    video: () => `${shot('288:512:88:0', '1+0.35*on/90', { cx: 0.5, cy: 0.2 })},eq=saturation=0.55:contrast=1.2:brightness=-0.06,vignette=angle=PI/3.6,`
      + `${caption('Anton-Regular.ttf', 'WAIT FOR IT...', { size: 104, y: 'h*0.76', punch: 0.5, pulse: 0.06 })},format=yuv420p[v]`,
  },
  {
    name: 'Plot Twist', seconds: 3, picture: 'astronaut', preview: 1.4,
    sounds: [{ material: 'dramatic', at: 0.8 }],
    booms: [0.8],
    // Calm portrait, then the hit: snap zoom onto the face, flash, shake, colours pushed, yellow caption.
    video: () => `${shot('288:512:88:0', punchZoom(1.05, 1.9, 0.8), { cx: 0.5, cy: 0.18, shake: { at: 0.8, amount: 36 } })},`
      + `hue=s='if(lt(t,0.8),1,1.7)',eq=contrast=1.15,${flash(0.8)},vignette=angle=PI/4,`
      + `${caption('Bangers-Regular.ttf', 'PLOT TWIST', { size: 160, y: 'h*0.76', at: 0.8, color: '0xFFE600', border: 10, punch: 0.8 })},format=yuv420p[v]`,
  },
  {
    name: 'Nobody', seconds: 2.5, picture: 'cat', preview: 1.6,
    sounds: [{ material: 'yippee', at: 1, gain: -2 }],
    booms: [1],
    // The "Nobody: / Me:" format on a plain white post: text first, then the cat punches in.
    video: () => `color=c=white:s=${MEME_W}x${MEME_H}:r=${MEME_FPS}:d=2.5,setsar=1,`
      + `${caption('Montserrat-Black.ttf', 'Nobody:', { size: 76, y: '210', x: '64', color: 'black', border: 0, punch: 0 })},`
      + `${caption('Montserrat-Black.ttf', 'Me:', { size: 76, y: '330', x: '64', at: 0.9, color: 'black', border: 0, punch: 0 })}[page];`
      + `[0:v]crop=450:300:0:0,scale=1200:800:flags=lanczos,setsar=1,zoompan=z='${punchZoom(1.6, 1.05, 1)}':x='0.55*(iw-iw/zoom)':y='0.4*(ih-ih/zoom)':d=1:s=600x400:fps=${MEME_FPS},`
      + `scale=600:400,pad=616:416:8:8:color=black[cat];`
      + `[page][cat]overlay=x=52:y=430:enable='gte(t,1)',${flash(1, 0.25)},format=yuv420p[v]`,
  },
  {
    name: 'POV', seconds: 2.5, picture: 'cat', preview: 0.9,
    sounds: [{ material: 'shutter', at: 1.5 }],
    booms: [],
    // A handheld camera on the cat's face: drifting frame, viewfinder corners, blinking REC, shutter flash.
    video: () => {
      const corner = (x, y, w, h) => `drawbox=x=${x}:y=${y}:w=${w}:h=${h}:color=white@0.9:t=fill`;
      const L = 70, T = 8, M = 40;
      const corners = [
        corner(M, M, L, T), corner(M, M, T, L), corner(MEME_W - M - L, M, L, T), corner(MEME_W - M - T, M, T, L),
        corner(M, MEME_H - M - T, L, T), corner(M, MEME_H - M - L, T, L), corner(MEME_W - M - L, MEME_H - M - T, L, T), corner(MEME_W - M - T, MEME_H - M - L, T, L),
      ].join(',');
      return `[0:v]crop=176:300:150:0,scale=${MEME_W * 2}:${MEME_H * 2}:flags=lanczos,setsar=1,`
        + `zoompan=z='1.15+0.05*sin(on/17)':x='0.5*(iw-iw/zoom)+40*sin(on/11)':y='0.45*(ih-ih/zoom)+30*cos(on/13)':d=1:s=${MEME_W}x${MEME_H}:fps=${MEME_FPS},`
        + `${corners},drawbox=x=80:y=90:w=26:h=26:color=red:t=fill:enable='lt(mod(t,1),0.6)',`
        + `${caption('Anton-Regular.ttf', 'REC', { size: 40, y: '103', x: '120', border: 2, punch: 0 })},${flash(1.5, 0.8)},`
        + `${caption('LuckiestGuy-Regular.ttf', 'POV:', { size: 170, y: 'h*0.22', border: 10, punch: 0.7 })},format=yuv420p[v]`;
    },
  },
  {
    name: 'Bruh', seconds: 2.5, picture: 'cat', preview: 1.2,
    sounds: [{ material: 'lose', at: 0.6, gain: -3 }],
    booms: [0.6],
    // The deadpan cut: the cat stares, then a hard zoom into its eye in black and white, shake, BRUH.
    video: () => `${shot('176:300:120:0', `if(lt(on/${MEME_FPS},0.6),1.05,2.3)`, { cx: 0.093, cy: 0.31, shake: { at: 0.6, amount: 40 } })},`
      + `hue=s='if(lt(t,0.6),1,0)',eq=contrast=1.3,vignette=angle=PI/3.5,`
      + `${caption('Anton-Regular.ttf', 'BRUH', { size: 230, y: 'h*0.8', at: 0.6, border: 12, punch: 0.9 })},format=yuv420p[v]`,
  },
  {
    name: 'This Changes Everything', seconds: 3, preview: 1.5,
    // Drawn small and smooth (normalized iteration count), scaled up and softened: a fractal dive is
    // all fine detail that changes every frame, which is what makes video files large.
    generator: `mandelbrot=s=240x427:r=${MEME_FPS}:start_scale=2.5:end_scale=0.02:end_pts=90:start_x=-0.743643887037151:start_y=0.131825904205330:maxiter=150:inner=period:outer=normalized_iteration_count`,
    crf: 28,
    sounds: [{ material: 'crowd', at: 0.9, gain: -2 }],
    booms: [0.2, 0.9],
    // A Mandelbrot dive in shifting colours (the "mind blown" picture) with two stacked caption hits.
    video: () => `[0:v]scale=${MEME_W + 48}:${MEME_H + 86}:flags=bicubic,hue=h='t*120':s=1.4,gblur=sigma=2,setsar=1,`
      + `crop=${MEME_W}:${MEME_H}:x='24+20*sin(t*70)*exp(-6*${since(0.9)})*gte(t,0.9)':y='43+20*cos(t*60)*exp(-6*${since(0.9)})*gte(t,0.9)',`
      + `${flash(0.9, 0.5)},vignette=angle=PI/4,`
      + `${caption('Anton-Regular.ttf', 'THIS CHANGES', { size: 112, y: 'h*0.40', at: 0.2, border: 9, punch: 0.25 })},`
      + `${caption('Anton-Regular.ttf', 'EVERYTHING', { size: 150, y: 'h*0.52', at: 0.9, color: '0xFFE600', border: 11, punch: 0.3 })},format=yuv420p[v]`,
  },
  {
    name: 'Story Time', seconds: 3.5, picture: 'astronaut', preview: 2.6,
    sounds: [{ material: 'dream', at: 0, gain: -4 }, ...typewriterClicks('STORY TIME', 0.4, 0.13).map((at) => ({ material: 'typewriter', at, gain: 2 }))],
    booms: [],
    // A soft sepia flashback drift; the caption types itself out, one click per letter.
    video: () => `${shot('288:512:88:0', '1.1+0.15*on/105', { cx: 0.5, cy: 0.3 })},`
      + 'colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131,gblur=sigma=2.5,vignette=angle=PI/3.2,'
      + `${typewriter('Montserrat-Black.ttf', 'STORY TIME', { size: 96, y: 'h*0.78', x: 82, at: 0.4, step: 0.13 })},format=yuv420p[v]`,
  },
  {
    name: 'Breaking News', seconds: 3, picture: 'astronaut', preview: 1.8,
    sounds: [{ material: 'alert', at: 0, gain: -2 }],
    booms: [0.35],
    // The anchor shot with a glitchy cut-in (split colours, scanlines: no noise, which would cost more
    // bytes than the rest of the clip), a red banner sliding in and a ticker underneath.
    video: () => `${shot('288:512:88:0', '1.1+0.1*on/90', { cx: 0.5, cy: 0.25 })},`
      + `rgbashift=rh=-24:bh=24:gv=12:enable='lt(t,0.35)',drawgrid=w=iw:h=8:t=3:c=black@0.45:enable='lt(t,0.35)',`
      + `hue=h='if(lt(t,0.35),90,0)',eq=contrast=1.1[anchor];`
      + `color=c=0xD10A0A:s=${MEME_W}x170:r=${MEME_FPS}:d=3,${caption('Anton-Regular.ttf', 'BREAKING NEWS', { size: 118, y: '85', border: 0, punch: 0 })}[banner];`
      + `color=c=0x0B1A3A:s=${MEME_W}x80:r=${MEME_FPS}:d=3,`
      + `${caption('BebasNeue-Regular.ttf', 'THIS JUST IN +++ YOU WILL NOT BELIEVE WHAT HAPPENS NEXT +++ STAY TUNED +++', { size: 60, y: '42', x: 'w-mod(t*420,tw+w)', border: 0, punch: 0 })}[ticker];`
      + `[anchor][banner]overlay=x='min(0,-w+(t-0.35)*4000)':y=${MEME_H - 330}:enable='gte(t,0.35)'[a1];`
      + `[a1][ticker]overlay=x=0:y=${MEME_H - 160}:enable='gte(t,0.35)',${flash(0.35, 0.4)},format=yuv420p[v]`,
  },
];

function typewriterClicks(text, at, step) {
  return [...text].map((c, i) => (c === ' ' ? null : Math.round((at + i * step) * 1000) / 1000)).filter((t) => t !== null);
}

/** Left-aligned text typed out one character every `step` seconds from `at` (one drawtext per prefix). */
function typewriter(fontFile, text, { size, y, x, at, step }) {
  const parts = [];
  for (let i = 1; i <= text.length; i++) {
    if (text[i - 1] === ' ') continue;
    const from = Math.round((at + (i - 1) * step) * 1000) / 1000;
    const next = text.slice(i).search(/\S/);
    const until = next < 0 ? null : Math.round((at + (i + next) * step) * 1000) / 1000;
    parts.push(`drawtext=fontfile=${font(fontFile)}:text=${graphValue(text.slice(0, i))}:expansion=none:fontsize=${size}`
      + `:fontcolor=white:borderw=7:bordercolor=black:shadowx=0:shadowy=6:shadowcolor=black@0.5:x=${x}:y='${y}-${size / 2}'`
      + `:enable='${until === null ? `gte(t,${from})` : `gte(t,${from})*lt(t,${until})`}'`);
  }
  return parts.join(',');
}

/** The generated hit: a sine falling from ~165 Hz to 45 Hz, softly clipped, decaying in ~1 s (stereo). */
function boomSource(at, index) {
  const e = `0.9*tanh(2.5*sin(2*PI*(45*t+12*(1-exp(-10*t)))))*(1-exp(-300*t))*exp(-3.5*t)`;
  return `aevalsrc=exprs='${e}|${e}':s=48000:d=1.2,adelay=${Math.round(at * 1000)}:all=1[boom${index}]`;
}

const STEREO_48K = 'aformat=channel_layouts=mono|stereo,pan=stereo|FL=FL+FC|FR=FR+FC,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';

/** ffmpeg inputs and the audio graph ([amix], exactly `seconds` long) of a recipe; its inputs start at `first`. */
function memeAudio(recipe, files, first) {
  const inputs = [];
  const chains = [];
  const labels = [];
  // One input per material; a material used several times (typewriter clicks) is split.
  const used = [...new Set(recipe.sounds.map((s) => s.material))];
  used.forEach((material, k) => {
    const index = first + k;
    inputs.push('-i', files[material]);
    const uses = recipe.sounds.filter((s) => s.material === material);
    const split = uses.map((_, j) => `[m${k}_${j}]`);
    chains.push(`[${index}:a]${STEREO_48K}${uses.length > 1 ? `,asplit=${uses.length}${split.join('')}` : split[0]}`);
    uses.forEach((s, j) => {
      const label = `[s${k}_${j}]`;
      chains.push(`${split[j]}atrim=start=${s.from ?? 0},asetpts=PTS-STARTPTS,volume=${s.gain ?? 0}dB,adelay=${Math.round(s.at * 1000)}:all=1${label}`);
      labels.push(label);
    });
  });
  recipe.booms.forEach((at, i) => {
    chains.push(boomSource(at, i));
    labels.push(`[boom${i}]`);
  });
  const S = recipe.seconds;
  const mix = labels.length > 1 ? `${labels.join('')}amix=inputs=${labels.length}:duration=longest:dropout_transition=0:normalize=0,` : `${labels[0]}anull,`;
  chains.push(`${mix}apad=whole_dur=${S},atrim=end=${S},afade=t=out:st=${S - 0.25}:d=0.25[amix]`);
  return { inputs, graph: chains.join(';') };
}

function pictureInput(recipe, files) {
  // A still looped at the meme's rate for its length, or a generator cut to the length.
  return recipe.picture
    ? ['-loop', '1', '-framerate', String(MEME_FPS), '-t', String(recipe.seconds), '-i', files[recipe.picture]]
    : ['-f', 'lavfi', '-t', String(recipe.seconds), '-i', recipe.generator];
}

function buildMemeHooks() {
  mkdirSync(path.join(MEME_DIR, 'previews'), { recursive: true });
  const manifestFile = path.join(MEME_DIR, 'manifest.json');
  const previous = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : { items: [] };
  const operatorItems = previous.items.filter((i) => i.source?.kind !== 'generated');
  const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-memes-'));
  const tool = `ffmpeg ${ffmpegVersion()}`;
  const items = [];
  try {
    // Each package once; every material's file checked before anything is rendered.
    const versions = {};
    const files = {};
    for (const [key, m] of Object.entries(MEME_MATERIALS)) {
      if (!versions[m.pkg]) {
        console.log(`apt-get download ${m.pkg}`);
        versions[m.pkg] = download(m.pkg, work);
      }
      const file = path.join(versions[m.pkg].tree, m.path);
      if (!existsSync(file)) throw new Error(`${m.pkg} ${versions[m.pkg].version} has no /${m.path}`);
      files[key] = file;
    }
    for (const recipe of MEME_RECIPES) {
      const base = slug(recipe.name);
      const video = `${base}.mp4`;
      const png = `previews/${base}.png`;
      const S = recipe.seconds;
      const audio = memeAudio(recipe, files, 1);
      const graph = `${recipe.video()};${audio.graph}`;
      const inputs = [...pictureInput(recipe, files), ...audio.inputs];
      // Pass 1: the sound alone, measured (without the picture input: ffmpeg 5.1 spins forever on an
      // unread looped still); pass 2: picture and sound, the sound set to MEME_LUFS.
      const soundOnly = memeAudio(recipe, files, 0);
      const probeWav = path.join(work, `${base}.wav`);
      run(FFMPEG, ['-hide_banner', '-v', 'error', '-y', ...soundOnly.inputs, '-filter_complex', soundOnly.graph, '-map', '[amix]', probeWav], { cwd: ROOT });
      const measured = integratedLoudness(probeWav);
      const gain = Math.round((MEME_LUFS - measured) * 10) / 10;
      const finalGraph = `${graph.replace('[amix]', '[amix0]')};[amix0]volume=${gain}dB,alimiter=limit=0.95:level=0[a]`;
      // One filter thread: eq re-evaluated per frame (the flashes) is slice-threaded and then not
      // bit-for-bit repeatable; single-threaded, a rebuild gives the same files.
      run(FFMPEG, ['-hide_banner', '-v', 'error', '-y', '-filter_complex_threads', '1', ...inputs, '-filter_complex', finalGraph, '-map', '[v]', '-map', '[a]',
        '-t', String(S), '-r', String(MEME_FPS), '-c:v', 'libx264', '-preset', 'slow', '-crf', String(recipe.crf ?? 26), '-pix_fmt', 'yuv420p', '-g', String(MEME_FPS),
        '-c:a', 'aac', '-b:a', '96k', '-ar', '48000', '-ac', '2', '-map_metadata', '-1', '-fflags', '+bitexact',
        '-movflags', '+faststart', path.join(MEME_DIR, video)], { cwd: ROOT });
      // Preview: the frame that shows the meme best (after its hit), at 270x480.
      run(FFMPEG, ['-hide_banner', '-v', 'error', '-y', '-ss', String(recipe.preview), '-i', path.join(MEME_DIR, video),
        '-frames:v', '1', '-vf', `scale=${PREVIEW_SIZE}`, path.join(MEME_DIR, png)]);
      const duration = Math.round(probeVideoDuration(path.join(MEME_DIR, video)) * 1000) / 1000;
      const loudnessLufs = integratedLoudness(path.join(MEME_DIR, video));
      const materials = [
        ...(recipe.picture ? [recipe.picture] : []),
        ...new Set(recipe.sounds.map((s) => s.material)),
      ].map((key) => {
        const m = MEME_MATERIALS[key];
        return { role: key === recipe.picture ? 'picture' : 'sound', package: m.pkg, version: versions[m.pkg].version, path: `/${m.path}`, licence: m.licence, credit: m.credit };
      });
      if (recipe.generator) materials.unshift({ role: 'picture', generator: recipe.generator, licence: 'CC0-1.0' });
      if (recipe.booms.length) materials.push({ role: 'sound', generator: `aevalsrc (the boom at ${recipe.booms.join(', ')} s)`, licence: 'CC0-1.0' });
      const fonts = [...new Set([...graph.matchAll(/fontfile=assets\/fonts\/([\w.-]+)/g)].map((m) => m[1]))];
      for (const f of fonts) materials.push({ role: 'font', file: `assets/fonts/${f}`, licence: FONT_LICENCES[f] ?? 'see assets/fonts/README.md' });
      const licence = memeLicence(materials);
      const attribution = `Made by the shortwright project (scripts/build-catalog.mjs). ${materials.filter((m) => m.credit).map((m) => m.credit).join('. ')}.`;
      items.push({
        name: recipe.name, file: video, preview: png, duration, width: MEME_W, height: MEME_H, loudnessLufs,
        licence, attribution,
        // The whole graph as run (inputs: 0 = the picture material or generator, then the sound
        // materials in the order listed), the measured loudness gain included.
        source: { kind: 'generated', tool, recipe: finalGraph },
        materials,
      });
      console.log(`  ${recipe.name}: ${duration} s, ${loudnessLufs} LUFS, ${licence}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const names = new Set(items.map((i) => i.name));
  const manifest = { version: 1, kind: 'memeHooks', items: [...items, ...operatorItems.filter((i) => !names.has(i.name))] };
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${manifest.items.length} meme hooks in ${path.relative(ROOT, MEME_DIR)}/manifest.json`);
}

/**
 * The licence a whole meme ships under: that of its copyleft sound (the picture is public domain or
 * CC0 and the fonts only drew the text, so they add no condition; the picture's own terms are kept in
 * `materials`).
 */
function memeLicence(materials) {
  const sounds = [...new Set(materials.filter((m) => m.role === 'sound' && m.licence !== 'CC0-1.0').map((m) => m.licence))];
  if (sounds.length === 0) return 'CC0-1.0';
  // GPL-2.0-only material combined with "or later" material: the combination is GPL-2.0-only.
  if (sounds.includes('GPL-2.0-only') && sounds.every((l) => l.startsWith('GPL-'))) return 'GPL-2.0-only';
  if (sounds.length === 1) return sounds[0];
  return sounds.join(' AND ');
}

/** Duration of the first video stream (the picture, which the render plays), from ffprobe. */
function probeVideoDuration(file) {
  return Number(run(FFPROBE, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=duration', '-of', 'csv=p=0', file]).trim());
}

// `npm run catalog` builds every section; `-- music`, `-- game-videos` or `-- meme-hooks` builds one.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const only = process.argv[2];
  if (only !== undefined && only !== 'music' && only !== 'game-videos' && only !== 'meme-hooks') {
    console.error('usage: build-catalog.mjs [music|game-videos|meme-hooks]');
    process.exit(2);
  }
  if (only === undefined || only === 'music') main();
  if (only === undefined || only === 'game-videos') buildGameVideos();
  if (only === undefined || only === 'meme-hooks') buildMemeHooks();
}
