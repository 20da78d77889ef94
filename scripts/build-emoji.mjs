#!/usr/bin/env node
// Writes the caption emoji PNGs into assets/emoji: one per emoji of the keyword table
// (src/pipeline/captions/emoji.ts), taken from Noto Color Emoji (Debian fonts-noto-color-emoji, SIL OFL 1.1).
// That font stores every emoji as a ready-made PNG in its CBDT table, so the images are copied out
// byte for byte (no rasteriser, no pango, reproducible) and then squared to 128x128 with ffmpeg.
// `npm run emoji` (builds first). Font: --font PATH, else the system's copy of the Debian package, else
// the package fetched with `apt-get download` and unpacked with `dpkg-deb -x` into a temporary folder.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { EMOJI_KEYWORDS, emojiDir, emojiFileName } = await import(path.join(ROOT, 'dist', 'pipeline', 'captions', 'emoji.js'));
const { parseFont } = await import(path.join(ROOT, 'dist', 'pipeline', 'captions', 'font-file.js'));
const { mediaBinaries } = await import(path.join(ROOT, 'dist', 'media', 'binaries.js'));

const PACKAGE = 'fonts-noto-color-emoji';
const FONT_IN_PACKAGE = 'usr/share/fonts/truetype/noto/NotoColorEmoji.ttf';
/** Output size: the font's bitmaps are 136x128 (109 ppem); 128x128 keeps them sharp up to ~130 px on screen. */
const SIZE = 128;

const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-emoji-'));
try {
  const fontPath = locateFont();
  const buf = readFileSync(fontPath);
  const font = parseFont(buf);
  const out = emojiDir();
  mkdirSync(out, { recursive: true });
  const wanted = new Set(EMOJI_KEYWORDS.map((e) => emojiFileName(e.emoji)));
  // Files of emoji no longer in the table are removed, so the folder is exactly the table.
  for (const f of readdirSync(out)) if (f.endsWith('.png') && !wanted.has(f)) rmSync(path.join(out, f));
  let bytes = 0;
  for (const { emoji } of EMOJI_KEYWORDS) {
    const cp = emoji.codePointAt(0);
    if ([...emoji].length !== 1) throw new Error(`${emoji}: the table holds single code points only`);
    const glyph = font.glyphId(cp);
    if (!glyph) throw new Error(`${emoji} (U+${cp.toString(16)}) is not in ${fontPath}`);
    const raw = path.join(work, `${cp.toString(16)}.raw.png`);
    writeFileSync(raw, cbdtPng(buf, glyph));
    const file = path.join(out, emojiFileName(emoji));
    // Centre the 136x128 bitmap on a 128x128 canvas (the side columns are transparent padding).
    execFileSync(mediaBinaries().ffmpeg, ['-v', 'error', '-y', '-i', raw, '-vf', `format=rgba,scale=${SIZE}:${SIZE}:force_original_aspect_ratio=decrease:flags=lanczos,pad=${SIZE}:${SIZE}:(ow-iw)/2:(oh-ih)/2:color=black@0`,
      '-frames:v', '1', '-compression_level', '9', '-pred', 'mixed', file]);
    bytes += statSync(file).size;
  }
  console.log(`${EMOJI_KEYWORDS.length} emoji from ${fontPath} -> ${out} (${Math.round(bytes / 1024)} KB)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

function locateFont() {
  const arg = process.argv.indexOf('--font');
  if (arg > 0 && process.argv[arg + 1]) return process.argv[arg + 1];
  const system = path.join('/', FONT_IN_PACKAGE);
  if (existsSync(system)) return system;
  execFileSync('apt-get', ['download', PACKAGE], { cwd: work, stdio: 'inherit' });
  const deb = readdirSync(work).find((f) => f.startsWith(`${PACKAGE}_`) && f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${PACKAGE} produced no .deb`);
  console.log(`using ${deb}`);
  execFileSync('dpkg-deb', ['-x', path.join(work, deb), path.join(work, 'pkg')]);
  return path.join(work, 'pkg', FONT_IN_PACKAGE);
}

/**
 * The PNG of a glyph from the CBLC/CBDT colour bitmap tables (OpenType spec): the first strike,
 * index subtable formats 1 and 3 (offset arrays), image formats 17/18/19 (PNG data).
 */
function cbdtPng(buf, glyph) {
  const tables = new Map();
  for (let i = 0; i < buf.readUInt16BE(4); i++) {
    const rec = 12 + i * 16;
    tables.set(buf.toString('latin1', rec, rec + 4), buf.readUInt32BE(rec + 8));
  }
  const cblc = tables.get('CBLC'), cbdt = tables.get('CBDT');
  if (cblc === undefined || cbdt === undefined) throw new Error('the font has no CBLC/CBDT colour bitmaps');
  const strike = cblc + 8; // first BitmapSize record
  const array = cblc + buf.readUInt32BE(strike);
  const subtables = buf.readUInt32BE(strike + 8);
  for (let i = 0; i < subtables; i++) {
    const entry = array + i * 8;
    const first = buf.readUInt16BE(entry), last = buf.readUInt16BE(entry + 2);
    if (glyph < first || glyph > last) continue;
    const sub = array + buf.readUInt32BE(entry + 4);
    const indexFormat = buf.readUInt16BE(sub), imageFormat = buf.readUInt16BE(sub + 2), imageData = cbdt + buf.readUInt32BE(sub + 4);
    let at;
    if (indexFormat === 1) at = imageData + buf.readUInt32BE(sub + 8 + (glyph - first) * 4);
    else if (indexFormat === 3) at = imageData + buf.readUInt16BE(sub + 8 + (glyph - first) * 2);
    else throw new Error(`CBLC index format ${indexFormat} is not supported`);
    const skip = imageFormat === 17 ? 5 : imageFormat === 18 ? 8 : imageFormat === 19 ? 0 : -1;
    if (skip < 0) throw new Error(`CBDT image format ${imageFormat} is not PNG`);
    const length = buf.readUInt32BE(at + skip);
    return buf.subarray(at + skip + 4, at + skip + 4 + length);
  }
  throw new Error(`glyph ${glyph} has no colour bitmap`);
}
