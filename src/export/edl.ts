// CMX3600 edit decision list: one event per clip, the source's range (source in/out as timecode from
// the file's start) cut one after the other on the record timeline from 00:00:00:00. An EDL carries no
// picture placement and no captions: the crop path and the captions go with FCPXML and MLT; comments
// name the file (FROM CLIP NAME, the form Resolve and Premiere relink by) and the clip's title.
import { timecode, type Timeline } from './timeline.js';

export function toEdl(t: Timeline): string {
  const lines = [`TITLE: ${oneLine(t.name).slice(0, 70)}`, 'FCM: NON-DROP FRAME', ''];
  t.clips.forEach((c, i) => {
    const n = String(i + 1).padStart(3, '0');
    const tracks = c.source.hasAudio ? 'AA/V' : 'V';
    // Reel names are 8 characters at most in CMX3600; the file itself is named in the comment below.
    const reel = reelName(c.source.name);
    lines.push(`${n}  ${reel.padEnd(8)} ${tracks.padEnd(5)} C        ${timecode(c.sourceIn, t.rate)} ${timecode(c.sourceIn + c.length, t.rate)} ${timecode(c.offset, t.rate)} ${timecode(c.offset + c.length, t.rate)}`);
    lines.push(`* FROM CLIP NAME: ${oneLine(c.source.name)}`);
    lines.push(`* SOURCE FILE: ${oneLine(c.source.path)}`);
    lines.push(`* COMMENT: ${oneLine(c.title)} (short ${c.id})`);
    lines.push('');
  });
  return `${lines.join('\r\n')}`;
}

/** The file name without its extension, as a CMX3600 reel: 8 characters of A-Z, 0-9 and _. */
export function reelName(file: string): string {
  const base = file.replace(/\.[^.]*$/, '').toUpperCase().replace(/[^A-Z0-9_]/g, '_').slice(0, 8);
  return base || 'AX';
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').trim();
}
