#!/usr/bin/env node
// Builds the default music catalog (assets/catalog/music) from freely licensed Debian game-music
// packages, reproducibly: `npm run catalog`. For every track it downloads the package with
// `apt-get download` (no root, only the Debian mirror), re-encodes a short excerpt to mono Opus (the
// catalog ships in the npm package, so it stays small), measures the duration with ffprobe and the
// integrated loudness with ebur128 (the mix uses it to set the music relative to the voice), draws a
// waveform preview PNG, and records licence, attribution and source package/version in manifest.json.
// Entries an operator added by hand (source.kind "operator") are kept as they are.
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
