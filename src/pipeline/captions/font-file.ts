// Just enough of a TrueType/OpenType file to lay captions out before libass draws them: which
// characters the font has (cmap), how wide each one is (hmtx), and how libass sizes the font. Reading
// these few tables directly costs a millisecond per font and needs no native dependency; shaping
// (kerning, ligatures, conjuncts) is not modelled, which only ever makes a line come out narrower than
// measured here.
import { readFileSync } from 'node:fs';

export interface FontFile {
  unitsPerEm: number;
  /**
   * The font's height as libass sizes it, in font units: libass mimics VSFilter/GDI and scales a font
   * so that usWinAscent + usWinDescent (else the typo or hhea ascent - descent) equals the ASS font
   * size. A glyph's advance in px is therefore advance * fontSize / sizeUnits, and one line is fontSize tall.
   */
  sizeUnits: number;
  /** Advance width in font units of the glyph a code point maps to, or undefined when the font lacks it. */
  advance(codePoint: number): number | undefined;
  has(codePoint: number): boolean;
  /** Glyph id of a code point (0 = missing), for tools that read other tables (scripts/build-emoji.mjs). */
  glyphId(codePoint: number): number;
}

const cache = new Map<string, FontFile>();

/** Reads (once per process) the metrics of a .ttf/.otf file. */
export function loadFontFile(file: string): FontFile {
  let font = cache.get(file);
  if (!font) {
    font = parseFont(readFileSync(file));
    cache.set(file, font);
  }
  return font;
}

export function parseFont(buf: Buffer): FontFile {
  const tables = tableDirectory(buf);
  const head = need(tables, 'head'), hhea = need(tables, 'hhea'), hmtx = need(tables, 'hmtx'), maxp = need(tables, 'maxp');
  const unitsPerEm = buf.readUInt16BE(head + 18);
  const numGlyphs = buf.readUInt16BE(maxp + 4);
  const numHMetrics = buf.readUInt16BE(hhea + 34);
  const hheaAscent = buf.readInt16BE(hhea + 4), hheaDescent = buf.readInt16BE(hhea + 6);
  let sizeUnits = 0;
  const os2 = tables.get('OS/2');
  if (os2 !== undefined) {
    // Signed reads, as libass does ("sometimes used for signed values, despite being unsigned").
    sizeUnits = buf.readInt16BE(os2 + 74) + buf.readInt16BE(os2 + 76);
    if (sizeUnits === 0) sizeUnits = buf.readInt16BE(os2 + 68) - buf.readInt16BE(os2 + 70);
  }
  if (sizeUnits <= 0) sizeUnits = hheaAscent - hheaDescent;
  if (sizeUnits <= 0) sizeUnits = unitsPerEm;

  const glyphs = readCmap(buf, need(tables, 'cmap'));
  const advanceOf = (glyph: number): number => {
    if (glyph >= numGlyphs) return 0;
    const i = Math.min(glyph, numHMetrics - 1); // glyphs past numHMetrics repeat the last advance
    return buf.readUInt16BE(hmtx + i * 4);
  };
  return {
    unitsPerEm,
    sizeUnits,
    advance: (cp) => {
      const g = glyphs.get(cp);
      return g === undefined ? undefined : advanceOf(g);
    },
    has: (cp) => glyphs.has(cp),
    glyphId: (cp) => glyphs.get(cp) ?? 0,
  };
}

function tableDirectory(buf: Buffer): Map<string, number> {
  const version = buf.readUInt32BE(0);
  if (version !== 0x00010000 && version !== 0x4f54544f /* OTTO */ && version !== 0x74727565 /* true */) {
    throw new Error('not a TrueType/OpenType font file');
  }
  const count = buf.readUInt16BE(4);
  const tables = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const rec = 12 + i * 16;
    tables.set(buf.toString('latin1', rec, rec + 4), buf.readUInt32BE(rec + 8));
  }
  return tables;
}

function need(tables: Map<string, number>, tag: string): number {
  const at = tables.get(tag);
  if (at === undefined) throw new Error(`font has no ${tag} table`);
  return at;
}

/** Code point -> glyph id from the best Unicode cmap subtable (format 12 if present, else format 4). */
function readCmap(buf: Buffer, cmap: number): Map<number, number> {
  const count = buf.readUInt16BE(cmap + 2);
  let best: { offset: number; format: number } | null = null;
  for (let i = 0; i < count; i++) {
    const rec = cmap + 4 + i * 8;
    const platform = buf.readUInt16BE(rec), encoding = buf.readUInt16BE(rec + 2);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const offset = cmap + buf.readUInt32BE(rec + 4);
    const format = buf.readUInt16BE(offset);
    if (format === 12 && best?.format !== 12) best = { offset, format };
    else if (format === 4 && !best) best = { offset, format };
  }
  const map = new Map<number, number>();
  if (!best) return map;
  const t = best.offset;
  if (best.format === 12) {
    const groups = buf.readUInt32BE(t + 12);
    for (let i = 0; i < groups; i++) {
      const g = t + 16 + i * 12;
      const start = buf.readUInt32BE(g), end = buf.readUInt32BE(g + 4), glyph = buf.readUInt32BE(g + 8);
      for (let cp = start; cp <= end; cp++) if (glyph + cp - start) map.set(cp, glyph + cp - start);
    }
    return map;
  }
  const segX2 = buf.readUInt16BE(t + 6);
  const ends = t + 14, starts = ends + segX2 + 2, deltas = starts + segX2, rangeOffsets = deltas + segX2;
  for (let s = 0; s < segX2; s += 2) {
    const end = buf.readUInt16BE(ends + s), start = buf.readUInt16BE(starts + s);
    const delta = buf.readInt16BE(deltas + s), ro = buf.readUInt16BE(rangeOffsets + s);
    for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
      let glyph: number;
      if (ro === 0) glyph = (cp + delta) & 0xffff;
      else {
        const at = rangeOffsets + s + ro + (cp - start) * 2;
        glyph = buf.readUInt16BE(at);
        if (glyph !== 0) glyph = (glyph + delta) & 0xffff;
      }
      if (glyph !== 0) map.set(cp, glyph);
    }
  }
  return map;
}
