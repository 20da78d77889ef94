// Builds the sources of `npm run eval` (scripts/eval.mjs) from test/fixtures/eval/labels.json into a
// git-ignored cache, once: Festival scenarios are synthesised paragraph by paragraph, recorded-prompt talks
// are joined from Allison's prompts, real films are taken out of their Debian package. Each build records
// where every paragraph starts and ends, so paragraph labels ("p5"-"p7") become source seconds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Bump when the way sources are assembled changes, so cached builds are redone. */
const BUILDER_VERSION = 1;
const RATE = 16000;
/** Pause between paragraphs: a speaker's breath between thoughts. Interview turns get a shorter one. */
const PARAGRAPH_PAUSE_SEC = 0.7;
const TURN_PAUSE_SEC = 0.45;
const PROMPT_PAUSE_SEC = 0.8;
/** Between the segments of a joined source: a longer pause, as between two items of a show. */
const SEGMENT_PAUSE_SEC = 1.5;
/** The interviewer of a Q&A scenario: the same Festival voice, a fourth lower, so two people are heard. */
const HOST_PITCH_CENTS = -450;
const ALLISON_DIR = '/usr/share/asterisk/sounds/en_US_f_Allison';
const FESTIVAL_VOICE = '(voice_cmu_us_slt_arctic_hts)';

/** Real sounds mixed into scenarios, by the marker a scenario uses, and the Debian package they come from. */
const EFFECTS = {
  laughter: {
    pkg: 'hedgewars-data',
    // Five hedgehog voices laughing a moment apart sound like a small audience rather than one cartoon.
    files: ['Default', 'Classic', 'HillBilly', 'Mobster', 'British']
      .map((v) => `usr/share/games/hedgewars/Data/Sounds/voices/${v}/Laugh.ogg`),
    offsets: [0, 0.3, 0.55, 0.9, 1.3],
  },
  applause: {
    pkg: 'frozen-bubble-data',
    files: ['usr/share/games/frozen-bubble/snd/applause.ogg', 'usr/share/games/frozen-bubble/snd/applause.ogg'],
    offsets: [0, 1.6],
  },
};

const sha = (s) => createHash('sha256').update(s).digest('hex').slice(0, 16);

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
}

/** A file of a Debian package: from the installed system when it is there, else downloaded into the cache. */
export function debFile(cacheDir, pkg, rel) {
  const installed = path.join('/', rel);
  if (existsSync(installed)) return installed;
  const root = path.join(cacheDir, 'debs', pkg);
  const file = path.join(root, rel);
  if (existsSync(file)) return file;
  const dl = path.join(cacheDir, 'debs', 'download');
  mkdirSync(dl, { recursive: true });
  let deb = readdirSync(dl).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
  if (!deb) {
    console.error(`eval: apt-get download ${pkg} (for ${rel})`);
    run('apt-get', ['download', pkg], { cwd: dl });
    deb = readdirSync(dl).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
    if (!deb) throw new Error(`apt-get download ${pkg} gave no .deb`);
  }
  mkdirSync(root, { recursive: true });
  // Only the file asked for: some of these packages unpack to hundreds of megabytes.
  run('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" "./$3"', 'sh', path.join(dl, deb), root, rel]);
  if (!existsSync(file)) throw new Error(`${pkg} has no ${rel}`);
  return file;
}

/** Splits a scenario into paragraphs (blank-line separated); .prompts files have one prompt per line. */
export function scenarioParagraphs(text, kind) {
  if (kind === 'allison') {
    return text.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean).map((l) => l.split(/\s+/)[0]);
  }
  return text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

function durationOf(wav) {
  return Number(run('soxi', ['-D', wav]).toString().trim());
}

/** Any audio file -> 16 kHz mono 16-bit WAV, level untouched. */
function toWav(ffmpeg, input, out, extraFilter) {
  const args = ['-v', 'error', '-y', '-i', input, '-ac', '1', '-ar', String(RATE), '-sample_fmt', 's16'];
  if (extraFilter) args.push('-af', extraFilter);
  run(ffmpeg, [...args, out]);
}

function effectWav(ffmpeg, cacheDir, name, out) {
  const fx = EFFECTS[name];
  if (!fx) throw new Error(`unknown sound marker [${name}]`);
  const inputs = fx.files.map((rel) => debFile(cacheDir, fx.pkg, rel));
  const args = ['-v', 'error', '-y'];
  for (const f of inputs) args.push('-i', f);
  const chains = inputs.map((_, i) => `[${i}:a]aformat=channel_layouts=mono,aresample=${RATE},adelay=${Math.round(fx.offsets[i] * 1000)}[a${i}]`);
  const mix = `${inputs.map((_, i) => `[a${i}]`).join('')}amix=inputs=${inputs.length}:duration=longest:normalize=0,volume=${(1 / Math.sqrt(inputs.length)).toFixed(3)}[m]`;
  run(ffmpeg, [...args, '-filter_complex', [...chains, mix].join(';'), '-map', '[m]', '-ac', '1', '-ar', String(RATE), '-sample_fmt', 's16', out]);
}

function silenceWav(out, sec) {
  run('sox', ['-n', '-r', String(RATE), '-c', '1', '-b', '16', out, 'trim', '0', sec.toFixed(3)]);
}

/**
 * Builds one item's audio into `dir/<id>.wav` (or takes its film) and returns
 * { path, durationSec, paragraphs: [{ start, end, text }] }. Reuses the cache when the script is unchanged.
 */
export function buildSource(item, ctx) {
  const { fixturesDir, cacheDir, ffmpeg } = ctx;
  const srcDir = path.join(cacheDir, 'sources');
  mkdirSync(srcDir, { recursive: true });
  const metaPath = path.join(srcDir, `${item.id}.json`);
  const src = item.source;

  if (src.kind === 'concat') return buildConcat(item, ctx, metaPath);

  if (src.kind === 'deb') {
    const file = debFile(cacheDir, src.package, src.path);
    return { path: file, durationSec: probeDuration(ffmpeg, file), paragraphs: [] };
  }

  const scriptText = readFileSync(path.join(fixturesDir, src.script), 'utf8');
  const key = sha(JSON.stringify({ BUILDER_VERSION, kind: src.kind, scriptText }));
  if (existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    if (meta.key === key && existsSync(meta.path)) return meta;
  }

  console.error(`eval: building ${item.id} (${src.kind})`);
  const work = path.join(cacheDir, 'work', item.id);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const paras = scenarioParagraphs(scriptText, src.kind);
  const pieces = [];
  const paragraphs = [];
  let t = 0;
  paras.forEach((para, i) => {
    const piece = path.join(work, `p${String(i + 1).padStart(2, '0')}.wav`);
    let isTurn = false;
    if (src.kind === 'allison') {
      toWav(ffmpeg, path.join(ALLISON_DIR, `${para}.wav`), piece);
    } else {
      const marker = /^\[(\w+)\]$/.exec(para);
      if (marker) {
        effectWav(ffmpeg, cacheDir, marker[1], piece);
      } else {
        const host = para.startsWith('HOST:');
        isTurn = host || /^HOST:/.test(paras[i - 1] ?? '');
        const text = host ? para.slice(5).trim() : para;
        const txt = path.join(work, `p${i + 1}.txt`);
        const raw = path.join(work, `p${i + 1}.raw.wav`);
        writeFileSync(txt, `${text}\n`);
        run('text2wave', ['-eval', FESTIVAL_VOICE, txt, '-o', raw]);
        if (host) {
          const shifted = path.join(work, `p${i + 1}.host.wav`);
          run('sox', [raw, shifted, 'pitch', String(HOST_PITCH_CENTS)]);
          toWav(ffmpeg, shifted, piece);
        } else {
          toWav(ffmpeg, raw, piece);
        }
      }
    }
    if (i > 0) {
      const gap = path.join(work, `gap${i}.wav`);
      const sec = src.kind === 'allison' ? PROMPT_PAUSE_SEC : isTurn ? TURN_PAUSE_SEC : PARAGRAPH_PAUSE_SEC;
      silenceWav(gap, sec);
      pieces.push(gap);
      t += durationOf(gap);
    }
    const d = durationOf(piece);
    paragraphs.push({ start: +t.toFixed(3), end: +(t + d).toFixed(3), text: para });
    pieces.push(piece);
    t += d;
  });
  const out = path.join(srcDir, `${item.id}.wav`);
  const tmp = `${out}.tmp.wav`;
  run('sox', [...pieces, tmp]);
  renameSync(tmp, out);
  rmSync(work, { recursive: true, force: true });
  const meta = { key, path: out, durationSec: durationOf(out), paragraphs };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 1)}\n`);
  return meta;
}

/**
 * A long source made of other items one after another (a stream of segments, as a long recording is):
 * its labels are the parts' labels, shifted. Clips that hit by chance are rare on a source this long, so
 * these items tell a ranker that finds the moment from one that lands near it because the talk is short.
 */
function buildConcat(item, ctx, metaPath) {
  const byId = new Map(ctx.items.map((i) => [i.id, i]));
  const parts = item.source.parts.map((id) => {
    const part = byId.get(id);
    if (!part || part.source.kind === 'concat' || part.source.kind === 'deb') throw new Error(`${item.id}: cannot join ${id}`);
    return { id, built: buildSource(part, ctx) };
  });
  const key = sha(JSON.stringify({ BUILDER_VERSION, parts: parts.map((p) => p.built.key) }));
  if (existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    if (meta.key === key && existsSync(meta.path)) return meta;
  }
  console.error(`eval: building ${item.id} (${parts.map((p) => p.id).join(' + ')})`);
  const gap = path.join(ctx.cacheDir, 'sources', `${item.id}.gap.wav`);
  silenceWav(gap, SEGMENT_PAUSE_SEC);
  const pieces = [];
  const offsets = {};
  let t = 0;
  parts.forEach((p, i) => {
    if (i > 0) { pieces.push(gap); t += SEGMENT_PAUSE_SEC; }
    offsets[p.id] = +t.toFixed(3);
    pieces.push(p.built.path);
    t += p.built.durationSec;
  });
  const out = path.join(ctx.cacheDir, 'sources', `${item.id}.wav`);
  run('sox', [...pieces, `${out}.tmp.wav`]);
  renameSync(`${out}.tmp.wav`, out);
  rmSync(gap, { force: true });
  const meta = { key, path: out, durationSec: durationOf(out), paragraphs: [], offsets };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 1)}\n`);
  return meta;
}

function probeDuration(ffmpeg, file) {
  const ffprobe = process.env.SHORTS_FFPROBE ?? (ffmpeg.endsWith('ffmpeg') ? `${ffmpeg.slice(0, -6)}ffprobe` : 'ffprobe');
  return Number(run(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString().trim());
}

/** Label extents in source seconds: "p5"-"p7" through the build's paragraph times, or start/end as given. */
export function resolveLabels(item, built, ctx) {
  if (item.source.kind === 'concat') {
    const byId = new Map(ctx.items.map((i) => [i.id, i]));
    return item.source.parts.flatMap((id) => {
      const part = byId.get(id);
      const off = built.offsets[id];
      return resolveLabels(part, buildSource(part, ctx), ctx)
        .map((l) => ({ ...l, start: l.start + off, end: l.end + off, part: id }));
    });
  }
  return item.labels.map((l) => {
    if (typeof l.start === 'number') return { start: l.start, end: l.end, grade: l.grade, why: l.why };
    const at = (ref) => {
      const n = Number(/^p(\d+)$/.exec(ref)?.[1]);
      const p = built.paragraphs[n - 1];
      if (!p) throw new Error(`${item.id}: label refers to ${ref}, but the source has ${built.paragraphs.length} paragraphs`);
      return p;
    };
    return { start: at(l.from).start, end: at(l.to).end, grade: l.grade, why: l.why, from: l.from, to: l.to };
  });
}
