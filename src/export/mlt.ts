// MLT XML (Shotcut, Kdenlive, and Debian's `melt` renders it): a profile of the render's size and rate,
// the source's range of each clip one after the other, the picture placed by an affine filter whose
// rect is keyframed where the crop path turns (the frame the render cut out fills the frame), the
// content's loudness gain as a volume filter, and the captions on their own track: one transparent clip
// per cue with a dynamictext filter (Shotcut's "Text: Simple", Kdenlive's "Dynamic Text"), so each
// caption is a clip an editor can move, trim or retype.
//
// Tracks, bottom to top: the picture, the captions. A split or screen clip is placed by its first panel
// only (the top person, the screen region), cropped to what that panel shows: MLT's transitions fit a
// second picture track to the source's aspect again, so the other panel is left to the editor.
import { attrs, xmlEscape } from './xml.js';
import { joinWords } from '../pipeline/shared/script-text.js';
import type { Picture, Timeline } from './timeline.js';

export function toMlt(t: Timeline): string {
  const { width: W, height: H, rate } = t;
  const fps = rate.num / rate.den;
  const last = Math.max(0, t.length - 1);
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>', `<mlt${attrs({ LC_NUMERIC: 'C', version: '7.12.0', title: t.name })}>`];
  out.push(`  <profile${attrs({
    description: `${W}x${H} ${round(fps, 3)} fps`, width: W, height: H, progressive: 1, sample_aspect_num: 1, sample_aspect_den: 1,
    display_aspect_num: W, display_aspect_den: H, frame_rate_num: rate.num, frame_rate_den: rate.den, colorspace: 709,
  })}/>`);
  // One producer per source file.
  const producers = new Map<string, string>();
  for (const c of t.clips) {
    if (producers.has(c.source.path)) continue;
    const id = `source${producers.size}`;
    producers.set(c.source.path, id);
    const frames = Math.max(c.sourceIn + c.length, Math.ceil(c.source.durationSec * fps));
    out.push(`  <producer${attrs({ id, in: 0, out: frames - 1 })}>`);
    out.push(prop('resource', c.source.path, 4), prop('mlt_service', 'avformat', 4), prop('shotcut:caption', c.source.name, 4), prop('kdenlive:clipname', c.source.name, 4));
    out.push('  </producer>');
  }
  // The picture: on the bottom track, so nothing re-fits it (a transition would fit the clip's frame to the
  // source's aspect again); the affine filter draws it over the background colour.
  out.push('  <playlist id="picture">', prop('shotcut:name', 'Picture', 4));
  for (const c of t.clips) {
    const picture = c.pictures[0]!;
    out.push(`    <entry${attrs({ producer: producers.get(c.source.path)!, in: c.sourceIn, out: c.sourceIn + c.length - 1 })}>`);
    out.push(prop('shotcut:caption', c.title, 6));
    out.push(...placement(picture, c.sourceIn, c.sourceIn + c.length - 1, c.pictures.length > 1, c.source, colour(t.background)));
    if (c.source.hasAudio && Math.abs(c.gainDb) >= 0.01) {
      out.push('      <filter>', prop('mlt_service', 'volume', 8), prop('level', String(round(c.gainDb, 2)), 8), '      </filter>');
    }
    out.push('    </entry>');
  }
  out.push('  </playlist>');

  // Captions: a transparent colour clip per cue, its text drawn by dynamictext in the lower third.
  out.push(`  <producer${attrs({ id: 'caption', in: 0, out: last })}>`, prop('resource', '#00000000', 4), prop('mlt_service', 'color', 4), '  </producer>');
  out.push('  <playlist id="captions">', prop('shotcut:name', 'Captions', 4));
  let at = 0;
  for (const c of t.clips) {
    for (const cue of c.cues) {
      const a = Math.max(0, Math.round(cue.start * fps)), b = Math.min(c.length, Math.round(cue.end * fps));
      const text = joinWords(cue.words.map((w) => w.text));
      if (b <= a || !text) continue;
      const start = c.offset + a;
      if (start < at) continue; // cues never overlap; a rounding that made them would otherwise shift the track
      if (start > at) out.push(`    <blank length="${start - at}"/>`);
      out.push(`    <entry${attrs({ producer: 'caption', in: 0, out: b - a - 1 })}>`);
      out.push('      <filter>', prop('mlt_service', 'dynamictext', 8),
        // dynamictext reads #name# as a keyword; a literal # is written \#.
        prop('argument', text.replace(/#/g, '\\#'), 8),
        prop('geometry', `${Math.round(W * 0.05)} ${Math.round(H * 0.6)} ${Math.round(W * 0.9)} ${Math.round(H * 0.2)} 1`, 8),
        prop('halign', 'center', 8), prop('valign', 'middle', 8), prop('family', 'Sans', 8), prop('weight', '700', 8),
        prop('size', String(Math.max(8, Math.round(H * 0.035))), 8), prop('fgcolour', '#ffffffff', 8), prop('bgcolour', '#00000000', 8),
        prop('olcolour', '#000000ff', 8), prop('outline', String(Math.max(1, Math.round(H / 480))), 8), prop('pad', '0', 8),
        '      </filter>');
      out.push('    </entry>');
      at = c.offset + b;
    }
  }
  out.push('  </playlist>');

  out.push(`  <tractor${attrs({ id: 'timeline', in: 0, out: last, title: t.name })}>`);
  out.push('    <track producer="picture"/>', '    <track producer="captions" hide="audio"/>');
  out.push('    <transition>', prop('mlt_service', 'affine', 6), prop('a_track', '0', 6), prop('b_track', '1', 6), prop('always_active', '1', 6), prop('fill', '1', 6), prop('distort', '0', 6), '    </transition>');
  out.push('  </tractor>', '</mlt>', '');
  return out.join('\n');
}

/**
 * The filters that put one picture in place: for a panel of a split or screen (`crop`), the source is first
 * cropped to the union of its crop windows (what the panel can show), then the affine filter's rect, keyframed,
 * puts the cropped picture where the render draws it. Keyframe positions count from the filter's in point.
 */
function placement(picture: Picture, filterIn: number, filterOut: number, crop: boolean, source: { width: number; height: number }, background: string): string[] {
  let cx = 0, cy = 0, cw = source.width, ch = source.height;
  const lines: string[] = [];
  if (crop && picture.crop) {
    const xs = picture.crop.keys.map((k) => k.x), ys = picture.crop.keys.map((k) => k.y);
    cx = Math.floor(Math.min(...xs)); cy = Math.floor(Math.min(...ys));
    cw = Math.min(source.width - cx, Math.ceil(Math.max(...xs) + picture.crop.width) - cx);
    ch = Math.min(source.height - cy, Math.ceil(Math.max(...ys) + picture.crop.height) - cy);
    lines.push('      <filter>', prop('mlt_service', 'crop', 8), prop('left', String(cx), 8), prop('top', String(cy), 8),
      prop('right', String(source.width - cx - cw), 8), prop('bottom', String(source.height - cy - ch), 8), '      </filter>');
  }
  const rect = (r: { x: number; y: number; width: number; height: number }) => {
    // The rect of the whole source, moved to the cropped part: same scale, offset by the crop's origin.
    const sx = r.width / source.width, sy = r.height / source.height;
    return `${round(r.x + cx * sx)} ${round(r.y + cy * sy)} ${round(cw * sx)} ${round(ch * sy)} 1`;
  };
  const animation = picture.keys.length === 1 ? rect(picture.keys[0]!.rect) : picture.keys.map((k) => `${k.frame}=${rect(k.rect)}`).join(';');
  lines.push('      <filter>', prop('mlt_service', 'affine', 8), prop('in', String(filterIn), 8), prop('out', String(filterOut), 8),
    // distort: the render scales the window to exactly the frame (608x1080 is not exactly 9:16); so does the rect.
    prop('transition.rect', animation, 8), prop('transition.fill', '1', 8), prop('transition.distort', '1', 8),
    prop('background', `colour:${background}`, 8), '      </filter>');
  return lines;
}

function prop(name: string, value: string, indent: number): string {
  return `${' '.repeat(indent)}<property name="${xmlEscape(name)}">${xmlEscape(value)}</property>`;
}

/** #RRGGBB (or #RRGGBBAA) as MLT's colour producer takes it. */
function colour(hex: string): string {
  return /^#[0-9a-f]{6}([0-9a-f]{2})?$/i.test(hex) ? hex : '#000000';
}

function round(n: number, digits = 2): number {
  const k = 10 ** digits;
  return Math.round(n * k) / k;
}
