// The export writers as pure functions (issue 14): the geometry of each layout on the timeline against the
// render graph's own, the timecodes, and the escaping a subtitle or XML reader needs.
import { XMLParser } from 'fast-xml-parser';
import { parseText } from 'media-captions';
import { describe, expect, it } from 'vitest';
import { centredPicture, splitGeometry } from '../src/media/layout-graphs.js';
import { buildFilterGraph } from '../src/media/ffmpeg-args.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import type { CaptionCue } from '../src/domain/captions.js';
import { buildTimeline, offsets, rateOf, timecode, type TimelineSource } from '../src/export/timeline.js';
import { subtitlesOf, toSrt, toVtt } from '../src/export/subtitles.js';
import { reelName, toEdl } from '../src/export/edl.js';
import { toFcpxml } from '../src/export/fcpxml.js';
import { toMlt } from '../src/export/mlt.js';
import { sourceName } from '../src/service/export-service.js';

function plan(over: Partial<RenderPlan['reframe']> = {}, extra: Partial<RenderPlan> = {}): RenderPlan {
  return {
    version: 1,
    input: { path: '/videos/talk.mp4', start: 10, end: 20, width: 1920, height: 1080, hasAudio: true },
    output: { path: '/data/clips/01-x.mp4', width: 1080, height: 1920, preset: 'veryfast', crf: 23 },
    reframe: { layout: 'fill', cropWidth: 608, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.3, cy: 0.5 }, { t: 4, cx: 0.7, cy: 0.5 }], faceCoverage: 1, ...over },
    background: { blur: false, color: '#112233' },
    captions: null,
    loudness: { targetLufs: -14, truePeakDb: -1, gainsDb: { content: 3.25, meme: 0, sting: 0 } },
    ...extra,
  };
}
const source: TimelineSource = { path: '/videos/talk.mp4', name: 'talk.mp4', width: 1920, height: 1080, hasAudio: true, fps: 25, durationSec: 60 };
const word = (text: string, start: number, end: number) => ({ text, start, end, probability: 1 });
const cues: CaptionCue[] = [
  { start: 0.5, end: 1.5, words: [word('Fish', 0.5, 1), word('&', 1, 1.2), word('<chips>', 1.2, 1.5)] },
  { start: 2, end: 11, words: [word('a --> b', 2, 11)] },
];

describe('the crop path on the timeline', () => {
  it('fill: the crop window fills the frame, at the render\'s offsets, keyframed where the path turns', () => {
    const t = buildTimeline('x', [{ id: 'a', title: 'A', plan: plan(), cues: [], source }]);
    const c = t.clips[0]!;
    expect([c.sourceIn, c.length, c.offset]).toEqual([250, 250, 0]);
    const keys = c.pictures[0]!.keys;
    // cropExpression's offsets: round(0.3*1920 - 304) = 272, round(0.7*1920 - 304) = 1040; scale 1080/608.
    const s = 1080 / 608;
    expect(keys.map((k) => k.frame)).toEqual([0, 100, 249]);
    // Scaled as the render scales the window: to exactly the frame (1080/608 across, 1920/1080 down).
    expect(keys[0]!.rect).toEqual({ x: -272 * s, y: 0, width: 1920 * s, height: 1920 });
    expect(keys[1]!.rect.x).toBeCloseTo(-1040 * s, 6);
    // The render's own graph crops at the same offsets.
    expect(buildFilterGraph(plan())).toContain("x='272+768*clip((t-0)/4,0,1)'");
  });

  it('a path that never moves is one keyframe; none at all is the centre', () => {
    expect(offsets([{ t: 0, cx: 0.5, cy: 0.5 }, { t: 3, cx: 0.5, cy: 0.5 }], { width: 608, height: 1080 }, { width: 1920, height: 1080 }, 25, 100)).toEqual([{ frame: 0, x: 656, y: 0 }]);
    expect(offsets([], { width: 608, height: 1080 }, { width: 1920, height: 1080 }, 25, 100)).toEqual([{ frame: 0, x: 656, y: 0 }]);
  });

  it('fit and square sit where the render centres them; split\'s first panel is the top half', () => {
    const fit = buildTimeline('x', [{ id: 'a', title: 'A', plan: plan({ layout: 'fit', cropWidth: 1920, cropHeight: 1080, keyframes: [] }), cues: [], source }]);
    const r = centredPicture('fit', { width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { width: 1920, height: 1080 });
    expect(fit.clips[0]!.pictures[0]!.keys).toEqual([{ frame: 0, rect: r }]);
    const split = buildTimeline('x', [{ id: 'a', title: 'A', plan: plan({ layout: 'split', cropWidth: 1080, cropHeight: 960, keyframes: [{ t: 0, cx: 0.3, cy: 0.5 }], second: { keyframes: [{ t: 0, cx: 0.7, cy: 0.5 }] } }), cues: [], source }]);
    const g = splitGeometry({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { width: 1080, height: 960 });
    const [top, bottom] = split.clips[0]!.pictures;
    expect(top!.panel).toEqual(g.top);
    expect(bottom!.panel).toEqual(g.bottom);
    // The MLT project crops the source to the top panel's window before placing it.
    const mlt = toMlt(split);
    expect(mlt).toContain('<property name="mlt_service">crop</property>');
  });

  it('with a gameplay split screen the content is placed in the top half', () => {
    const t = buildTimeline('x', [{ id: 'a', title: 'A', plan: plan({ cropWidth: 1216, cropHeight: 1080 }, { gameVideo: { path: '/g.mp4', offset: 0, duration: 30 } }), cues: [], source }]);
    expect(t.clips[0]!.pictures[0]!.panel).toEqual({ x: 0, y: 0, width: 1080, height: 960 });
  });
});

describe('timecodes and rates', () => {
  it('NTSC rates are n*1000/1001; timecode counts frames non-drop', () => {
    expect(rateOf(29.97)).toEqual({ num: 30000, den: 1001 });
    expect(rateOf(25)).toEqual({ num: 25, den: 1 });
    expect(timecode(25 * 3661 + 7, { num: 25, den: 1 })).toBe('01:01:01:07');
    expect(reelName('my talk (final).mov')).toBe('MY_TALK_');
  });
});

describe('captions', () => {
  it('SRT and WebVTT escape what their readers would take for markup or a timing line, and stop at the content\'s end', async () => {
    const subs = subtitlesOf(cues, 1, 10);
    expect(subs.map((s) => [s.start, s.end])).toEqual([[1.5, 2.5], [3, 11]]);
    const srt = await parseText(toSrt(subs), { type: 'srt', strict: true });
    const vtt = await parseText(toVtt(subs), { type: 'vtt', strict: true });
    expect(srt.errors).toEqual([]);
    expect(vtt.errors).toEqual([]);
    expect(vtt.cues.map((c) => c.text)).toEqual(['Fish &amp; &lt;chips&gt;', 'a -&gt; b']);
    expect(srt.cues.map((c) => c.text)).toEqual(['Fish & <chips>', 'a -> b']);
  });
});

describe('projects', () => {
  const t = buildTimeline('Talk <1> & "2"', [
    { id: 'a', title: 'First & best', plan: plan(), cues, source },
    { id: 'b', title: 'Second', plan: plan({}, { input: { ...plan().input, start: 30, end: 34.02 } }), cues: [], source },
  ]);

  it('the EDL has one event per clip, the second after the first on the record side', () => {
    const edl = toEdl(t);
    expect(edl).toContain('001  TALK     AA/V  C        00:00:10:00 00:00:20:00 00:00:00:00 00:00:10:00\r\n');
    expect(edl).toContain('002  TALK     AA/V  C        00:00:30:00 00:00:34:01 00:00:10:00 00:00:14:01\r\n');
  });

  it('FCPXML and MLT are well-formed XML with the names escaped', () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
    const fcp = parser.parse(toFcpxml(t, 'en')).fcpxml;
    expect(fcp.library.event.name).toBe('Talk <1> & "2"');
    const clips = fcp.library.event.project.sequence.spine['asset-clip'];
    expect(clips.map((c: any) => [c.offset, c.start, c.duration])).toEqual([['0s', '250/25s', '250/25s'], ['250/25s', '750/25s', '101/25s']]);
    expect(clips[0]['adjust-volume'].amount).toBe('3.25dB');
    expect(clips[0]['adjust-transform'].param.keyframeAnimation.keyframe).toHaveLength(3);
    const mlt = parser.parse(toMlt(t)).mlt;
    expect(mlt.profile).toMatchObject({ width: '1080', height: '1920', frame_rate_num: '25', frame_rate_den: '1' });
    expect(mlt.tractor.out).toBe(String(250 + 101 - 1));
  });
});

describe('the source\'s name in an API request\'s exports', () => {
  it('the submitted file\'s name, else the title with the file\'s extension', () => {
    expect(sourceName({ url: 'https://cdn.example/v/my%20talk.mp4?sig=1' }, null, '/data/work/source.mp4')).toBe('my talk.mp4');
    expect(sourceName({ url: 'https://www.youtube.com/watch?v=abc' }, { title: 'A/B test: results' }, '/data/work/source.webm')).toBe('A_B test_ results.webm');
    expect(sourceName({ url: '/home/me/talk.mov' }, null, '/home/me/talk.mov')).toBe('talk.mov');
  });
});
