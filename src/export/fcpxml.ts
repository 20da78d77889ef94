// FCPXML 1.10 (Final Cut Pro; DaVinci Resolve imports it too): a project on a vertical format of the
// render's size, each clip an asset-clip of the source's range, one after the other in the spine. The
// picture is placed at its native size (adjust-conform none) and moved and scaled by adjust-transform,
// with a keyframe where the crop path turns; the captions are connected caption elements (an SRT
// caption role), so they show in the editor's captions lane and move with the clip.
//
// FCPXML positions are percent of the frame's height from its centre, y up; times are rational
// seconds of whole frames. Split and screen clips are placed by their first panel only (FCPXML has no
// mask short of a Motion template): the other panel is left to the editor.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { joinWords } from '../pipeline/shared/script-text.js';
import { rateOf, type Rate, type Timeline, type TimelineClip, type TimelineSource } from './timeline.js';
import { attrs, xmlEscape } from './xml.js';

export function toFcpxml(t: Timeline, language = 'en'): string {
  const time = (frames: number, rate: Rate = t.rate) => (frames === 0 ? '0s' : `${frames * rate.den}/${rate.num}s`);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE fcpxml>', '<fcpxml version="1.10">', '  <resources>'];
  out.push(`    <format${attrs({ id: 'r1', frameDuration: time(1), width: t.width, height: t.height, colorSpace: '1-1-1 (Rec. 709)' })}/>`);
  // One format and one asset per source file.
  const assets = new Map<string, { id: string; source: TimelineSource }>();
  let next = 2;
  for (const c of t.clips) {
    if (assets.has(c.source.path)) continue;
    const formatId = `r${next++}`, assetId = `r${next++}`;
    const s = c.source, rate = rateOf(s.fps);
    assets.set(s.path, { id: assetId, source: s });
    out.push(`    <format${attrs({ id: formatId, frameDuration: time(1, rate), width: s.width, height: s.height })}/>`);
    out.push(`    <asset${attrs({
      id: assetId, name: s.name.replace(/\.[^.]*$/, ''), start: '0s', duration: time(Math.ceil(s.durationSec * t.rate.num / t.rate.den)), hasVideo: 1, format: formatId,
      hasAudio: s.hasAudio ? 1 : undefined, audioSources: s.hasAudio ? 1 : undefined, audioChannels: s.hasAudio ? 2 : undefined, audioRate: s.hasAudio ? 48000 : undefined,
    })}>`);
    out.push(`      <media-rep${attrs({ kind: 'original-media', src: mediaUrl(s.path) })}/>`);
    out.push('    </asset>');
  }
  out.push('  </resources>', '  <library>', `    <event${attrs({ name: t.name })}>`, `      <project${attrs({ name: t.name })}>`);
  out.push(`        <sequence${attrs({ format: 'r1', duration: time(t.length), tcStart: '0s', tcFormat: 'NDF', audioLayout: 'stereo', audioRate: '48k' })}>`);
  out.push('          <spine>');
  let styles = 0;
  for (const c of t.clips) {
    const asset = assets.get(c.source.path)!;
    out.push(`            <asset-clip${attrs({ ref: asset.id, name: c.title || c.source.name, offset: time(c.offset), start: time(c.sourceIn), duration: time(c.length), tcFormat: 'NDF' })}>`);
    out.push('              <adjust-conform type="none"/>');
    out.push(...transform(c, t).map((l) => `              ${l}`));
    if (c.source.hasAudio && Math.abs(c.gainDb) >= 0.01) out.push(`              <adjust-volume amount="${round(c.gainDb)}dB"/>`);
    const fps = t.rate.num / t.rate.den;
    for (const cue of c.cues) {
      const a = Math.max(0, Math.round(cue.start * fps)), b = Math.min(c.length, Math.round(cue.end * fps));
      const text = joinWords(cue.words.map((w) => w.text));
      if (b <= a || !text) continue;
      const id = `ts${++styles}`;
      out.push(`              <caption${attrs({ lane: 1, offset: time(c.sourceIn + a), duration: time(b - a), name: text.slice(0, 60), role: `SRT?captionFormat=SRT.${language}` })}>`);
      out.push(`                <text placement="bottom"><text-style ref="${id}">${xmlEscape(text)}</text-style></text>`);
      out.push(`                <text-style-def id="${id}"><text-style font="Helvetica" fontSize="13" fontColor="1 1 1 1" backgroundColor="0 0 0 1"/></text-style-def>`);
      out.push('              </caption>');
    }
    out.push('            </asset-clip>');
  }
  out.push('          </spine>', '        </sequence>', '      </project>', '    </event>', '  </library>', '</fcpxml>', '');
  return out.join('\n');
}

/** adjust-transform of the clip's first picture: position (percent of the frame height, y up) and scale, keyframed where the path turns. */
function transform(c: TimelineClip, t: Timeline): string[] {
  const picture = c.pictures[0];
  if (!picture) return [];
  const value = (r: { x: number; y: number; width: number; height: number }) => {
    const dx = r.x + r.width / 2 - t.width / 2, dy = r.y + r.height / 2 - t.height / 2;
    return { position: `${round((dx / t.height) * 100)} ${round((-dy / t.height) * 100)}`, scale: `${round(r.width / c.source.width, 6)} ${round(r.height / c.source.height, 6)}` };
  };
  const first = value(picture.keys[0]!.rect);
  if (picture.keys.length === 1) return [`<adjust-transform${attrs(first)}/>`];
  const time = (frame: number) => `${(c.sourceIn + frame) * t.rate.den}/${t.rate.num}s`;
  return [
    `<adjust-transform${attrs(first)}>`,
    '  <param name="position">',
    '    <keyframeAnimation>',
    ...picture.keys.map((k) => `      <keyframe time="${time(k.frame)}" value="${value(k.rect).position}"/>`),
    '    </keyframeAnimation>',
    '  </param>',
    '</adjust-transform>',
  ];
}

/** A media-rep src: a file URL for an absolute path, the name itself (relative to the project) otherwise. */
function mediaUrl(p: string): string {
  return path.isAbsolute(p) ? pathToFileURL(p).href : encodeURI(p);
}

function round(n: number, digits = 4): number {
  const k = 10 ** digits;
  return Math.round(n * k) / k;
}
