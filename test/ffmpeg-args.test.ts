import { describe, expect, it } from 'vitest';
import { buildRenderArgs, cropExpression, filterPath, partialOutputPath, segmentLoudnessArgs, SILENT_HALF_DIM } from '../src/media/ffmpeg-args.js';
import { panelCrop, screenGeometry, splitGeometry } from '../src/media/layout-graphs.js';
import { outputFps, RENDER_PLAN_VERSION, type RenderPlan } from '../src/media/render-plan.js';
import type { CropKeyframe, ReframePlan } from '../src/domain/layout.js';

/** A 30 s clip from a 1920x1080 source, rendered to 1080x1920. */
function plan(over: { reframe?: Partial<ReframePlan>; input?: Partial<RenderPlan['input']>; output?: Partial<RenderPlan['output']> } & Partial<Pick<RenderPlan, 'background' | 'captions'>> = {}): RenderPlan {
  return {
    version: 1,
    input: { path: '/media/in.mp4', start: 12.5, end: 42.5, width: 1920, height: 1080, hasAudio: true, ...over.input },
    output: { path: '/out/clip-1.mp4', width: 1080, height: 1920, preset: 'veryfast', crf: 23, ...over.output },
    reframe: { layout: 'fill', cropWidth: 608, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1, ...over.reframe },
    background: over.background ?? { blur: true, color: '#111111' },
    captions: over.captions ?? null,
  };
}

const HEAD = ['-hide_banner', '-nostdin', '-y', '-v', 'error', '-nostats', '-progress', 'pipe:2', '-ss', '12.5', '-t', '30', '-i', '/media/in.mp4'];
const VIDEO = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'];
const AAC = ['-c:a', 'aac', '-b:a', '128k'];
const TAIL = ['-movflags', '+faststart', '-f', 'mp4', '/out/clip-1.mp4.partial'];
const BLUR_BG = '[bg]scale=270:480:force_original_aspect_ratio=increase:flags=fast_bilinear,crop=270:480,boxblur=14:2,scale=1080:1920:flags=bilinear,setsar=1[bgb]';
const FIT_WIDE = { layout: 'fit' as const, cropWidth: 1920, cropHeight: 1080, keyframes: [], faceCoverage: 0 };
const STEREO_48K = 'aformat=channel_layouts=mono|stereo,pan=stereo|FL=FL+FC|FR=FR+FC,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';
/** Edge fades of a 30 s clip: 10 ms in, 10 ms out (a cut in room tone must not click). */
const FADES_30 = 'afade=t=in:st=0:d=0.01,afade=t=out:st=29.99:d=0.01';
/** The clip's own sound, as the whole short's: stereo 48 kHz, exactly 30 s, faded at both edges. */
const SOUND_30 = `;[0:a]${STEREO_48K},apad=whole_dur=30,atrim=end=30,${FADES_30}[aout]`;

describe('buildRenderArgs', () => {
  it('fill, static crop, with audio: seek on the input, crop then scale, x264 + AAC, faststart', () => {
    expect(buildRenderArgs(plan())).toEqual([
      ...HEAD,
      '-filter_complex', "[0:v]crop=w=608:h=1080:x='656':y='0',scale=1080:1920,setsar=1[vout]" + SOUND_30,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('fill with a moving crop, a 30 fps cap and captions', () => {
    const args = buildRenderArgs(plan({
      output: { fps: 30 },
      reframe: { keyframes: [{ t: 0, cx: 0.3, cy: 0.5 }, { t: 2, cx: 0.6, cy: 0.5 }, { t: 5, cx: 0.6, cy: 0.5 }] },
      captions: { assPath: '/work/job 1/clip.ass', fontsDir: '/app/assets/fonts' },
    }));
    expect(args).toEqual([
      ...HEAD,
      '-filter_complex', "[0:v]fps=30,crop=w=608:h=1080:x='272+576*clip((t-0)/2,0,1)':y='0',scale=1080:1920,setsar=1,"
        + 'ass=filename=/work/job 1/clip.ass:fontsdir=/app/assets/fonts[vout]' + SOUND_30,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('fit over a blurred background (blurred at a quarter size), no audio', () => {
    expect(buildRenderArgs(plan({ input: { hasAudio: false }, reframe: FIT_WIDE }))).toEqual([
      ...HEAD,
      '-filter_complex', `[0:v]split=2[bg][fg];${BLUR_BG};[fg]scale=1080:608,setsar=1[fgs];[bgb][fgs]overlay=0:656[vout]`,
      '-map', '[vout]', ...VIDEO, '-an', ...TAIL,
    ]);
  });

  it('fit over the solid template colour pads instead of compositing', () => {
    expect(buildRenderArgs(plan({ reframe: FIT_WIDE, background: { blur: false, color: '#1c1c1e' } }))).toEqual([
      ...HEAD,
      '-filter_complex', '[0:v]scale=1080:608,pad=1080:1920:0:656:color=0x1C1C1E,setsar=1[vout]' + SOUND_30,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('square crop centred over a blurred background, with captions', () => {
    const args = buildRenderArgs(plan({
      reframe: { layout: 'square', cropWidth: 1080, cropHeight: 1080 },
      captions: { assPath: '/tmp/c.ass', fontsDir: '/f' },
    }));
    expect(args).toEqual([
      ...HEAD,
      '-filter_complex', `[0:v]split=2[bg][fg];${BLUR_BG};[fg]crop=w=1080:h=1080:x='420':y='0',scale=1080:1080,setsar=1[fgs];`
        + '[bgb][fgs]overlay=0:420,ass=filename=/tmp/c.ass:fontsdir=/f[vout]' + SOUND_30,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('square over a solid colour, no audio, 360x640 output', () => {
    const args = buildRenderArgs(plan({
      input: { hasAudio: false, width: 640, height: 360 },
      output: { width: 360, height: 640, preset: 'ultrafast', crf: 28 },
      reframe: { layout: 'square', cropWidth: 360, cropHeight: 360 },
      background: { blur: false, color: '#204080' },
    }));
    expect(args).toEqual([
      ...HEAD,
      '-filter_complex', "[0:v]crop=w=360:h=360:x='140':y='0',scale=360:360,pad=360:640:0:140:color=0x204080,setsar=1[vout]",
      '-map', '[vout]', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '28', '-pix_fmt', 'yuv420p', '-an', ...TAIL,
    ]);
  });

  it('fit of a source that already has the output shape is a plain scale (no background work)', () => {
    const args = buildRenderArgs(plan({ input: { width: 720, height: 1280 }, reframe: { ...FIT_WIDE, cropWidth: 720, cropHeight: 1280 } }));
    expect(args[args.indexOf('-filter_complex') + 1]).toBe('[0:v]scale=1080:1920,setsar=1[vout]' + SOUND_30);
  });

  it('clamps and evens a crop window larger than the source', () => {
    const args = buildRenderArgs(plan({ input: { width: 640, height: 360 }, reframe: { cropWidth: 999, cropHeight: 999 } }));
    expect(args[args.indexOf('-filter_complex') + 1]).toContain("crop=w=640:h=360:x='0':y='0'");
  });

  it('escapes the caption path for the filter graph', () => {
    const args = buildRenderArgs(plan({ captions: { assPath: "/tmp/it's: a, [x];y/c.ass", fontsDir: '/f' } }));
    expect(args[args.indexOf('-filter_complex') + 1]).toContain("ass=filename=/tmp/it\\\\\\'s\\\\: a\\, \\[x\\]\\;y/c.ass:fontsdir=/f[vout]");
  });

  it('keeps paths that look like options or protocols as plain files', () => {
    const args = buildRenderArgs(plan({ input: { path: 'concat:a.mp4|b.mp4' }, output: { path: '-clip.mp4' } }));
    expect(args[args.indexOf('-i') + 1]).toBe('file:concat:a.mp4|b.mp4');
    expect(args[args.length - 1]).toBe('file:-clip.mp4.partial');
  });

  it('writes to a .partial file next to the output', () => {
    expect(partialOutputPath(plan())).toBe('/out/clip-1.mp4.partial');
  });

  it('rejects plans it cannot render', () => {
    expect(() => buildRenderArgs({ ...plan(), version: 2 as unknown as 1 })).toThrow(/version/);
    expect(() => buildRenderArgs(plan({ output: { width: 1079 } }))).toThrow(/even/);
    expect(() => buildRenderArgs(plan({ input: { start: 5, end: 5 } }))).toThrow(/empty/);
    expect(() => buildRenderArgs(plan({ reframe: FIT_WIDE, background: { blur: false, color: 'black' } }))).toThrow(/#RRGGBB/);
    expect(RENDER_PLAN_VERSION).toBe(1);
  });
});

/** Evaluates one of our crop expressions in JS (they only use + - * / clip gte and t). */
function evaluate(expr: string, t: number): number {
  const clip = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const gte = (a: number, b: number) => (a >= b ? 1 : 0);
  expect(expr).toMatch(/^[-+*/().,0-9a-z]+$/);
  return new Function('t', 'clip', 'gte', `return ${expr};`)(t, clip, gte) as number;
}

describe('cropExpression', () => {
  const kf = (list: [number, number][]): CropKeyframe[] => list.map(([t, cx]) => ({ t, cx, cy: 0.5 }));

  it('is a constant for a single keyframe, and for none centres the window', () => {
    expect(cropExpression(kf([[0, 0.5]]), 'x', 608, 1920)).toBe('656');
    expect(cropExpression([], 'x', 608, 1920)).toBe('656');
    expect(cropExpression(kf([[0, 0.2], [3, 0.2]]), 'x', 608, 1920)).toBe('80');
  });

  it('interpolates linearly between keyframes and holds before the first and after the last', () => {
    const expr = cropExpression(kf([[1, 0.3], [3, 0.6], [4, 0.6], [6, 0.4]]), 'x', 608, 1920);
    expect(expr).toBe('272+576*clip((t-1)/2,0,1)-384*clip((t-4)/2,0,1)');
    const x = (t: number) => evaluate(expr, t);
    expect(x(0)).toBe(272);
    expect(x(1)).toBe(272);
    expect(x(2)).toBe(560);
    expect(x(3)).toBe(848);
    expect(x(3.5)).toBe(848);
    expect(x(5)).toBe(656);
    expect(x(9)).toBe(464);
  });

  it('keeps the window inside the frame', () => {
    const expr = cropExpression(kf([[0, 0], [1, 1]]), 'x', 608, 1920);
    expect(evaluate(expr, 0)).toBe(0);
    expect(evaluate(expr, 1)).toBe(1920 - 608);
  });

  it('works on the y axis from cy, and sorts keyframes by time', () => {
    const keys: CropKeyframe[] = [{ t: 2, cx: 0.5, cy: 0.75 }, { t: 0, cx: 0.5, cy: 0.25 }];
    const expr = cropExpression(keys, 'y', 1000, 2000);
    expect(evaluate(expr, 0)).toBe(0);
    expect(evaluate(expr, 1)).toBe(500);
    expect(evaluate(expr, 2)).toBe(1000);
  });

  it('jumps at once between keyframes at the same time (a scene cut)', () => {
    const expr = cropExpression(kf([[0, 0.3], [2, 0.3], [2, 0.7]]), 'x', 608, 1920);
    expect(evaluate(expr, 1.99)).toBe(272);
    expect(evaluate(expr, 2)).toBe(1040);
  });

  it('stays one flat sum for many keyframes', () => {
    const many = kf(Array.from({ length: 300 }, (_, i) => [i / 5, 0.3 + 0.2 * Math.sin(i / 10)] as [number, number]));
    const expr = cropExpression(many, 'x', 608, 1920);
    expect(expr).not.toContain('if(');
    expect(evaluate(expr, 30)).toBeCloseTo(Math.round((0.3 + 0.2 * Math.sin(15)) * 1920 - 304), 0);
  });
});

describe('filterPath', () => {
  it('escapes option-level then graph-level special characters', () => {
    expect(filterPath('/plain/path.ass')).toBe('/plain/path.ass');
    expect(filterPath('C:\\x')).toBe('C\\\\:\\\\\\\\x');
    expect(filterPath("a'b")).toBe("a\\\\\\'b");
  });
});

describe('outputFps', () => {
  it('caps fast sources at 30, forces constant rate for VFR, keeps ordinary rates', () => {
    expect(outputFps({ fps: 59.94, variableFrameRate: false })).toBe(30);
    expect(outputFps({ fps: 29.5, variableFrameRate: true })).toBe(30);
    expect(outputFps({ fps: 25, variableFrameRate: false })).toBeUndefined();
    expect(outputFps({ fps: 30, variableFrameRate: false })).toBeUndefined();
  });
});

describe('x264 tuning', () => {
  it('passes -x264-params only when the plan asks for it', async () => {
    const { buildRenderArgs } = await import('../src/media/ffmpeg-args.js');
    const plan = {
      version: 1 as const,
      input: { path: '/in.mp4', start: 0, end: 5, width: 1920, height: 1080, hasAudio: true },
      output: { path: '/out.mp4', width: 1080, height: 1920, preset: 'veryfast', crf: 23 },
      reframe: { layout: 'fill' as const, cropWidth: 608, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 },
      background: { blur: true, color: '#000000' },
      captions: null,
    };
    expect(buildRenderArgs(plan)).not.toContain('-x264-params');
    const tuned = buildRenderArgs({ ...plan, output: { ...plan.output, x264Params: 'me=dia:subme=1:trellis=0' } });
    expect(tuned.slice(tuned.indexOf('-x264-params'), tuned.indexOf('-x264-params') + 2)).toEqual(['-x264-params', 'me=dia:subme=1:trellis=0']);
  });
});

describe('buildRenderArgs with background music', () => {
  const FILL = "[0:v]crop=w=608:h=1080:x='656':y='0',scale=1080:1920,setsar=1[vout]";
  const FMT = 'aformat=channel_layouts=mono|stereo,pan=stereo|FL=FL+FC|FR=FR+FC,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';
  const withMusic = (music: NonNullable<RenderPlan['music']>, input: Partial<RenderPlan['input']> = {}): RenderPlan => ({ ...plan({ input }), music });

  it('loops the track as a second input, sets its gain relative to the measured voice, ducks, fades and mixes', () => {
    // voice -20 LUFS, track -14 LUFS, volume 50: -20 - (-14) + 20*log10(0.5) = -6 - 6.0206 dB.
    // The key is lifted from -20 to the -16 LUFS reference: level_sc = 10^(4/20) = 1.585.
    const args = buildRenderArgs(withMusic({ path: '/catalog/music/funky.opus', volume: 50, trackLufs: -14, speechLufs: -20 }));
    expect(args).toEqual([
      ...HEAD,
      '-stream_loop', '-1', '-t', '30', '-i', '/catalog/music/funky.opus',
      '-filter_complex', `${FILL};`
        + `[0:a]${FMT},apad=whole_dur=30,asplit=2[voice][key];`
        + `[1:a]${FMT},volume=-12.021dB,afade=t=in:st=0:d=1,afade=t=out:st=28.5:d=1.5[bed];`
        + '[bed][key]sidechaincompress=threshold=0.02:ratio=4:attack=20:release=400:level_sc=1.585[ducked];'
        + `[voice][ducked]amix=inputs=2:duration=first:dropout_transition=0:normalize=0,alimiter=limit=0.98:level=0,${FADES_30}[aout]`,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('a source without audio gets the music alone, at the reference speech level', () => {
    // -16 - (-16) + 20*log10(0.1) = -20 dB; short clip (2 s): fades shrink to a quarter of it.
    const args = buildRenderArgs(withMusic({ path: '/m.opus', volume: 10, trackLufs: -16, speechLufs: null }, { hasAudio: false, start: 0, end: 2 }));
    const fc = args[args.indexOf('-filter_complex') + 1];
    expect(fc).toBe("[0:v]crop=w=608:h=1080:x='656':y='0',scale=1080:1920,setsar=1[vout];"
      + `[1:a]${FMT},volume=-20dB,afade=t=in:st=0:d=0.5,afade=t=out:st=1.5:d=0.5,afade=t=in:st=0:d=0.01,afade=t=out:st=1.99:d=0.01[aout]`);
    expect(args.slice(args.indexOf('-map'))).toEqual(['-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL]);
    expect(args).toContain('/m.opus');
  });

  it('volume 0 is no music at all: the plain argv', () => {
    expect(buildRenderArgs(withMusic({ path: '/m.opus', volume: 0, trackLufs: -16, speechLufs: -18 }))).toEqual(buildRenderArgs(plan()));
  });

  it('a track path that looks like an option or a URL is passed as file:', () => {
    const args = buildRenderArgs(withMusic({ path: '-odd.opus', volume: 10, trackLufs: -16, speechLufs: -16 }));
    expect(args.slice(args.indexOf('-stream_loop'), args.indexOf('-stream_loop') + 6)).toEqual(['-stream_loop', '-1', '-t', '30', '-i', 'file:-odd.opus']);
  });

  it('refuses a volume outside 0-100', () => {
    expect(() => buildRenderArgs(withMusic({ path: '/m.opus', volume: 101, trackLufs: -16, speechLufs: -16 }))).toThrow(/0-100/);
  });
});

describe('buildRenderArgs with split-screen gameplay', () => {
  // The reframe and captions are planned for the 1080x960 top half (orchestrator): a 9:8 window.
  const TOP = { layout: 'fill' as const, cropWidth: 1214, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 };
  const GAME = { path: '/catalog/game-videos/neon-life.mp4', offset: 7.25, duration: 20 };
  const GAME_IN = ['-stream_loop', '-1', '-ss', '7.25', '-t', '30', '-an', '-i', '/catalog/game-videos/neon-life.mp4'];
  const BOTTOM = '[top]pad=1080:1920:0:0:color=black[frame];'
    + '[1:v]scale=1080:960:force_original_aspect_ratio=increase,crop=1080:960,setsar=1[game];'
    + '[frame][game]overlay=x=0:y=960:eof_action=repeat[vout]';

  it('content (cropped for the top half, captioned there) over the looped, muted gameplay; only the clip audio', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: TOP, captions: { assPath: '/w/clip.ass', fontsDir: '/f' } }),
      gameVideo: GAME,
    });
    expect(args).toEqual([
      ...HEAD, ...GAME_IN,
      '-filter_complex', "[0:v]crop=w=1214:h=1080:x='353':y='0',scale=1080:960,setsar=1,ass=filename=/w/clip.ass:fontsdir=/f[top];" + BOTTOM + SOUND_30,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('fit in the top half over a blurred background, 30 fps cap applied to the gameplay too', () => {
    const args = buildRenderArgs({ ...plan({ reframe: FIT_WIDE, output: { fps: 30 } }), gameVideo: GAME });
    // 1920x1080 into 1080x960: 1080x608 centred at y=176; the blur works at a quarter (270x240).
    expect(args[args.indexOf('-filter_complex') + 1]).toBe(
      '[0:v]fps=30,split=2[bg][fg];'
      + '[bg]scale=270:240:force_original_aspect_ratio=increase:flags=fast_bilinear,crop=270:240,boxblur=14:2,scale=1080:960:flags=bilinear,setsar=1[bgb];'
      + '[fg]scale=1080:608,setsar=1[fgs];[bgb][fgs]overlay=0:176[top];'
      + '[top]pad=1080:1920:0:0:color=black[frame];'
      + '[1:v]fps=30,scale=1080:960:force_original_aspect_ratio=increase,crop=1080:960,setsar=1[game];'
      + '[frame][game]overlay=x=0:y=960:eof_action=repeat[vout]' + SOUND_30);
  });

  it('square in the top half is fitted to its height (the half is wider than square)', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: { layout: 'square', cropWidth: 1080, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 }, background: { blur: false, color: '#000000' } }),
      gameVideo: GAME,
    });
    expect(args[args.indexOf('-filter_complex') + 1]).toBe(
      "[0:v]crop=w=1080:h=1080:x='420':y='0',scale=960:960,pad=1080:960:60:0:color=0x000000,setsar=1[top];" + BOTTOM + SOUND_30);
  });

  it('with music the gameplay is the third input, and the mix still only hears clip + music', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: TOP }),
      music: { path: '/m.opus', volume: 50, trackLufs: -16, speechLufs: -16 },
      gameVideo: GAME,
    });
    expect(args.slice(HEAD.length, HEAD.length + 15)).toEqual(['-stream_loop', '-1', '-t', '30', '-i', '/m.opus', ...GAME_IN]);
    const fc = args[args.indexOf('-filter_complex') + 1]!;
    expect(fc).toContain('[2:v]scale=1080:960:force_original_aspect_ratio=increase,crop=1080:960,setsar=1[game]');
    expect(fc).toContain('[0:a]');
    expect(fc).toContain('[1:a]');
    expect(fc).not.toContain('[2:a]');
    expect(args.slice(args.indexOf('-map'))).toEqual(['-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL]);
  });

  it('null gameVideo is the plain argv', () => {
    expect(buildRenderArgs({ ...plan(), gameVideo: null })).toEqual(buildRenderArgs(plan()));
  });

  it('refuses an output height whose halves are odd, and an offset outside the file', () => {
    expect(() => buildRenderArgs({ ...plan({ output: { height: 1918 } }), gameVideo: GAME })).toThrow(/divisible by 4/);
    expect(() => buildRenderArgs({ ...plan(), gameVideo: { ...GAME, offset: 20 } })).toThrow(/offset/);
    expect(() => buildRenderArgs({ ...plan(), gameVideo: { ...GAME, offset: -1 } })).toThrow(/offset/);
  });
});

describe('buildRenderArgs with an end-screen outro', () => {
  const OUTRO = { seconds: 2, fps: 30, text: 'Subscribe for more', handle: '@me', imagePath: null, stingPath: '/s/sting.oga', assPath: '/w/outro.ass', fontsDir: '/f' };
  const FILL = "[0:v]crop=w=608:h=1080:x='656':y='0',scale=1080:1920,setsar=1[cv]";
  const STEREO = 'aformat=channel_layouts=mono|stereo,pan=stereo|FL=FL+FC|FR=FR+FC,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';
  const CARD = 'color=c=0x111111:s=1080x1920:r=30:d=2,setsar=1,ass=filename=/w/outro.ass:fontsdir=/f,format=yuv420p[ov]';
  const STING = `[1:a]${STEREO},apad=whole_dur=2,atrim=end=2,afade=t=out:st=1.85:d=0.15[oa]`;
  const CONCAT = '[cv][ca][ov][oa]concat=n=2:v=1:a=1[vout][aout]';

  it('stock card with sting: the bell is input 1, content + card joined by one concat', () => {
    expect(buildRenderArgs({ ...plan(), outro: OUTRO })).toEqual([
      ...HEAD, '-i', '/s/sting.oga',
      '-filter_complex', `${FILL};[0:a]${STEREO},apad=whole_dur=30,atrim=end=30,${FADES_30}[ca];${CARD};${STING};${CONCAT}`,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('no sting and no source audio: silence for both parts, still an AAC track', () => {
    expect(buildRenderArgs({ ...plan({ input: { hasAudio: false } }), outro: { ...OUTRO, stingPath: null, seconds: 1 } })).toEqual([
      ...HEAD,
      '-filter_complex', `${FILL};anullsrc=r=48000:cl=stereo:d=30[ca];${CARD.replace(':d=2', ':d=1')};anullsrc=r=48000:cl=stereo:d=1[oa];${CONCAT}`,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('custom image after music and gameplay inputs: fitted, centred on the backdrop, no text', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: { cropHeight: 540, cropWidth: 1080 } }),
      music: { path: '/m.opus', volume: 100, trackLufs: -16, speechLufs: -16 },
      gameVideo: { path: '/g.mp4', offset: 1, duration: 10 },
      outro: { ...OUTRO, imagePath: '/w/card.png', assPath: null, seconds: 3, fps: 25 },
    });
    expect(args.slice(HEAD.length)).toEqual(expect.arrayContaining(['-loop', '1', '-framerate', '25', '-t', '3', '-i', '/w/card.png', '-i', '/s/sting.oga']));
    expect(args.indexOf('/w/card.png')).toBe(args.indexOf('/g.mp4') + 8);
    const fc = args[args.indexOf('-filter_complex') + 1]!;
    expect(fc).toContain('[bed][key]sidechaincompress');
    expect(fc).toContain(`alimiter=limit=0.98:level=0,${FADES_30}[ca];`);
    expect(fc).toContain('eof_action=repeat[cv];');
    expect(fc).toContain('color=c=0x111111:s=1080x1920:r=25:d=3,setsar=1[obg];[3:v]scale=1080:1920:force_original_aspect_ratio=decrease,setsar=1[oimg];'
      + '[obg][oimg]overlay=x=(main_w-overlay_w)/2:y=(main_h-overlay_h)/2,format=yuv420p[ov];');
    expect(fc).toContain(`[4:a]${STEREO},apad=whole_dur=3,atrim=end=3,afade=t=out:st=2.85:d=0.15[oa];${CONCAT}`);
    expect(args.slice(args.indexOf('-map'))).toEqual(['-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL]);
  });

  it('null outro is the plain argv; out-of-range seconds are refused', () => {
    expect(buildRenderArgs({ ...plan(), outro: null })).toEqual(buildRenderArgs(plan()));
    expect(() => buildRenderArgs({ ...plan(), outro: { ...OUTRO, seconds: 4 } })).toThrow(/1-3/);
  });
});

describe('buildRenderArgs with a meme intro', () => {
  const MEME = { path: '/c/meme-hooks/plot-twist.mp4', seconds: 3, fps: 30, hasAudio: true };
  const FILL = "[0:v]crop=w=608:h=1080:x='656':y='0',scale=1080:1920,setsar=1[cv]";
  const STEREO = 'aformat=channel_layouts=mono|stereo,pan=stereo|FL=FL+FC|FR=FR+FC,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';
  const memePicture = (input: number, fps = '30', s = '3') => `[${input}:v]fps=${fps},scale=1080:1920:force_original_aspect_ratio=increase,crop=1080:1920,setsar=1,format=yuv420p,`
    + `tpad=stop_mode=clone:stop_duration=${s},trim=duration=${s},setpts=PTS-STARTPTS[mv]`;

  it('the meme is the next input, covers the full frame and plays before the content in one concat', () => {
    expect(buildRenderArgs({ ...plan(), memeHook: MEME })).toEqual([
      ...HEAD, '-t', '3', '-i', '/c/meme-hooks/plot-twist.mp4',
      '-filter_complex', `${FILL};[0:a]${STEREO},apad=whole_dur=30,atrim=end=30,${FADES_30}[ca];${memePicture(1)};`
        + `[1:a]${STEREO},apad=whole_dur=3,atrim=end=3[ma];[mv][ma][cv][ca]concat=n=2:v=1:a=1[vout][aout]`,
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('a silent meme before a silent clip: silence for both, still an AAC track; the rate follows the plan', () => {
    expect(buildRenderArgs({ ...plan({ input: { hasAudio: false } }), memeHook: { ...MEME, hasAudio: false, seconds: 2.5, fps: 29.97 } })).toEqual([
      ...HEAD, '-t', '2.5', '-i', '/c/meme-hooks/plot-twist.mp4',
      '-filter_complex', `${FILL};anullsrc=r=48000:cl=stereo:d=30[ca];${memePicture(1, '29.97', '2.5')};`
        + 'anullsrc=r=48000:cl=stereo:d=2.5[ma];[mv][ma][cv][ca]concat=n=2:v=1:a=1[vout][aout]',
      '-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL,
    ]);
  });

  it('with music, gameplay and an outro: meme input last, full frame before the split screen, three segments', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: { cropHeight: 540, cropWidth: 1080 } }),
      music: { path: '/m.opus', volume: 100, trackLufs: -16, speechLufs: -16 },
      gameVideo: { path: '/g.mp4', offset: 1, duration: 10 },
      outro: { seconds: 2, fps: 30, text: 'Bye', handle: null, imagePath: null, stingPath: '/s/sting.oga', assPath: null, fontsDir: '/f' },
      memeHook: MEME,
    });
    // 0 content, 1 music, 2 gameplay, 3 sting, 4 meme: the content's indexes never move.
    expect(args.slice(HEAD.length, args.indexOf('-filter_complex'))).toEqual([
      '-stream_loop', '-1', '-t', '30', '-i', '/m.opus',
      '-stream_loop', '-1', '-ss', '1', '-t', '30', '-an', '-i', '/g.mp4',
      '-i', '/s/sting.oga', '-t', '3', '-i', '/c/meme-hooks/plot-twist.mp4',
    ]);
    const fc = args[args.indexOf('-filter_complex') + 1]!;
    expect(fc).toContain('[2:v]scale=1080:960:force_original_aspect_ratio=increase');
    expect(fc).toContain(`${memePicture(4)};[4:a]${STEREO},apad=whole_dur=3,atrim=end=3[ma];`);
    expect(fc).toContain('[3:a]');
    expect(fc.endsWith('[mv][ma][cv][ca][ov][oa]concat=n=3:v=1:a=1[vout][aout]')).toBe(true);
    expect(args.slice(args.indexOf('-map'))).toEqual(['-map', '[vout]', '-map', '[aout]', ...VIDEO, ...AAC, ...TAIL]);
  });

  it('null memeHook is the plain argv; a zero length or frame rate is refused', () => {
    expect(buildRenderArgs({ ...plan(), memeHook: null })).toEqual(buildRenderArgs(plan()));
    expect(() => buildRenderArgs({ ...plan(), memeHook: { ...MEME, seconds: 0 } })).toThrow(/meme hook must last/);
    expect(() => buildRenderArgs({ ...plan(), memeHook: { ...MEME, fps: 0 } })).toThrow(/meme hook frame rate/);
  });
});

describe('buildRenderArgs with platform loudness', () => {
  const LIMITER = 'aresample=192000,alimiter=limit=0.7943:level=0:latency=1,aresample=48000';
  const loud = (gainsDb?: { content: number; meme: number; sting: number }): Pick<RenderPlan, 'loudness'> => ({ loudness: { targetLufs: -14, truePeakDb: -1, gainsDb } });

  it('raises the clip by its measured gain after the edge fades, then one true-peak limiter 1 dB under -1 dBTP at 192 kHz', () => {
    const args = buildRenderArgs({ ...plan(), ...loud({ content: 5.25, meme: 0, sting: 0 }) });
    expect(args[args.indexOf('-filter_complex') + 1]).toBe("[0:v]crop=w=608:h=1080:x='656':y='0',scale=1080:1920,setsar=1[vout];"
      + `[0:a]${STEREO_48K},apad=whole_dur=30,atrim=end=30,${FADES_30},volume=5.25dB[araw];[araw]${LIMITER}[aout]`);
    expect(args.slice(args.indexOf('-map'), args.indexOf('-map') + 4)).toEqual(['-map', '[vout]', '-map', '[aout]']);
  });

  it('with music the limiter replaces the mix\'s own, and the gain applies to voice and music together', () => {
    const args = buildRenderArgs({ ...plan(), music: { path: '/m.opus', volume: 10, trackLufs: -16, speechLufs: -20 }, ...loud({ content: -2, meme: 0, sting: 0 }) });
    const fc = args[args.indexOf('-filter_complex') + 1]!;
    expect(fc).toContain(`[voice][ducked]amix=inputs=2:duration=first:dropout_transition=0:normalize=0,${FADES_30},volume=-2dB[araw];[araw]${LIMITER}[aout]`);
    expect(fc).not.toContain('limit=0.98');
  });

  it('meme, content and sting each get their own gain; the limiter follows the concat', () => {
    const args = buildRenderArgs({
      ...plan(),
      memeHook: { path: '/c/m.mp4', seconds: 3, fps: 30, hasAudio: true },
      outro: { seconds: 2, fps: 30, text: null, handle: null, imagePath: null, stingPath: '/s/sting.oga', assPath: null, fontsDir: '/f' },
      ...loud({ content: 4, meme: 2.5, sting: -1.5 }),
    });
    const fc = args[args.indexOf('-filter_complex') + 1]!;
    expect(fc).toContain(`${FADES_30},volume=4dB[ca]`);
    expect(fc).toContain('afade=t=out:st=1.85:d=0.15,volume=-1.5dB[oa]');
    expect(fc).toContain('apad=whole_dur=3,atrim=end=3,volume=2.5dB[ma]');
    expect(fc.endsWith(`[mv][ma][cv][ca][ov][oa]concat=n=3:v=1:a=1[vout][araw];[araw]${LIMITER}[aout]`)).toBe(true);
  });

  it('refuses to render a loudness plan whose gains were not measured, and gains over 30 dB', () => {
    expect(() => buildRenderArgs({ ...plan(), ...loud() })).toThrow(/measured/);
    expect(() => buildRenderArgs({ ...plan(), ...loud({ content: 31, meme: 0, sting: 0 }) })).toThrow(/30 dB/);
  });

  it('measuring passes hear each segment exactly as the render mixes it, audio only, before any gain', () => {
    const p: RenderPlan = {
      ...plan(),
      music: { path: '/m.opus', volume: 10, trackLufs: -16, speechLufs: -20 },
      memeHook: { path: '/c/m.mp4', seconds: 3, fps: 30, hasAudio: true },
      outro: { seconds: 2, fps: 30, text: null, handle: null, imagePath: null, stingPath: '/s/sting.oga', assPath: null, fontsDir: '/f' },
      ...loud(),
    };
    const content = segmentLoudnessArgs(p, 'content')!;
    expect(content.slice(0, 19)).toEqual(['-hide_banner', '-nostdin', '-nostats', '-v', 'info', '-ss', '12.5', '-t', '30', '-i', '/media/in.mp4',
      '-stream_loop', '-1', '-t', '30', '-i', '/m.opus', '-filter_complex', content[18]!]);
    expect(content[18]).toMatch(/sidechaincompress.*normalize=0,afade=t=in:st=0:d=0\.01,afade=t=out:st=29\.99:d=0\.01\[ca\];\[ca\]ebur128=peak=true:framelog=verbose\[measured\]$/);
    expect(content.slice(19)).toEqual(['-map', '[measured]', '-f', 'null', '-']);
    expect(segmentLoudnessArgs(p, 'meme')).toEqual(['-hide_banner', '-nostdin', '-nostats', '-v', 'info', '-t', '3', '-i', '/c/m.mp4',
      '-filter_complex', `[0:a]${STEREO_48K},apad=whole_dur=3,atrim=end=3[ma];[ma]ebur128=peak=true:framelog=verbose[measured]`, '-map', '[measured]', '-f', 'null', '-']);
    // The correction pass goes through the gain and the render's limiter.
    expect(segmentLoudnessArgs(p, 'sting', { gainDb: 3, limited: true })![8]).toBe(
      `[0:a]${STEREO_48K},apad=whole_dur=2,atrim=end=2,afade=t=out:st=1.85:d=0.15,volume=3dB[oa];[oa]${LIMITER},ebur128=peak=true:framelog=verbose[measured]`);
    // No sound at all: nothing to measure.
    expect(segmentLoudnessArgs({ ...p, input: { ...p.input, hasAudio: false }, music: null }, 'content')).toBeNull();
    expect(segmentLoudnessArgs({ ...p, memeHook: { ...p.memeHook!, hasAudio: false } }, 'meme')).toBeNull();
    expect(segmentLoudnessArgs({ ...p, outro: null }, 'sting')).toBeNull();
  });
});

describe('buildRenderArgs with the split layout (issue 13)', () => {
  // Two people in a 1920x1080 wide shot; each half is 1080x960 (9:8), so a 1080x960 window on each face.
  const SPLIT = {
    layout: 'split' as const, cropWidth: 1080, cropHeight: 960, faceCoverage: 1,
    keyframes: [{ t: 0, cx: 0.3, cy: 0.5 }], second: { keyframes: [{ t: 0, cx: 0.7, cy: 0.5 }] },
  };
  const fc = (args: string[]) => args[args.indexOf('-filter_complex') + 1]!;

  it('one decode split in two, each crop scaled to its half, stacked', () => {
    expect(buildRenderArgs(plan({ reframe: SPLIT, input: { hasAudio: false } }))).toEqual([
      ...HEAD,
      '-filter_complex', '[0:v]split=2[vout_a][vout_b];'
        + "[vout_a]crop=w=1080:h=960:x='36':y='60',scale=1080:960,setsar=1[vout_top];"
        + "[vout_b]crop=w=1080:h=960:x='804':y='60',scale=1080:960,setsar=1[vout_bottom];"
        + '[vout_top][vout_bottom]vstack=inputs=2[vout]',
      '-map', '[vout]', ...VIDEO, '-an', ...TAIL,
    ]);
  });

  it('fps cap before the split, moving crops, the silent half dimmed while the other speaks, captions and emoji over the stack', () => {
    const args = buildRenderArgs(plan({
      output: { fps: 30 },
      reframe: {
        ...SPLIT,
        keyframes: [{ t: 0, cx: 0.3, cy: 0.5 }, { t: 2, cx: 0.35, cy: 0.5 }],
        speakers: [{ start: 0, end: 4.5, half: 'top' }, { start: 6, end: 9.25, half: 'bottom' }, { start: 12, end: 15, half: 'top' }],
      },
      captions: { assPath: '/w/c.ass', fontsDir: '/f', emoji: [{ path: '/e/1.png', start: 1, end: 2, x: 500, y: 900, size: 80 }] },
    }));
    expect(fc(args)).toBe('[0:v]fps=30,split=2[vout_a][vout_b];'
      + "[vout_a]crop=w=1080:h=960:x='36+96*clip((t-0)/2,0,1)':y='60',scale=1080:960,setsar=1,"
      + `${SILENT_HALF_DIM}:enable='between(t,6,9.25)'[vout_top];`
      + "[vout_b]crop=w=1080:h=960:x='804':y='60',scale=1080:960,setsar=1,"
      + `${SILENT_HALF_DIM}:enable='between(t,0,4.5)+between(t,12,15)'[vout_bottom];`
      + '[vout_top][vout_bottom]vstack=inputs=2,ass=filename=/w/c.ass:fontsdir=/f[vout_cap0];'
      + "movie=filename=/e/1.png,scale=80:80[vout_emoji0];[vout_cap0][vout_emoji0]overlay=x=500:y='900-20*pow(max(0,1-(t-1)/0.2),2)':eval=frame:enable='between(t,1,2)'[vout]"
      + SOUND_30);
  });

  it('with gameVideo the two halves share the top half, labels stay unique', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: { ...SPLIT, cropWidth: 1920, cropHeight: 960 } }),
      gameVideo: { path: '/g.mp4', offset: 1, duration: 10 },
    });
    // 1080x480 halves (9:4): a window planned for 9:8 halves (1920x960) is shortened to 1920x854, not stretched.
    expect(fc(args)).toBe('[0:v]split=2[top_a][top_b];'
      + "[top_a]crop=w=1920:h=854:x='0':y='113',scale=1080:480,setsar=1[top_top];"
      + "[top_b]crop=w=1920:h=854:x='0':y='113',scale=1080:480,setsar=1[top_bottom];"
      + '[top_top][top_bottom]vstack=inputs=2[top];[top]pad=1080:1920:0:0:color=black[frame];'
      + '[1:v]scale=1080:960:force_original_aspect_ratio=increase,crop=1080:960,setsar=1[game];'
      + '[frame][game]overlay=x=0:y=960:eof_action=repeat[vout]' + SOUND_30);
  });

  it('in a short with a meme intro and an outro the stack is the content segment [cv]', () => {
    const args = buildRenderArgs({
      ...plan({ reframe: SPLIT }),
      memeHook: { path: '/c/m.mp4', seconds: 3, fps: 30, hasAudio: true },
      outro: { seconds: 2, fps: 30, text: null, handle: null, imagePath: null, stingPath: null, assPath: null, fontsDir: '/f' },
    });
    expect(fc(args)).toMatch(/^\[0:v\]split=2\[cv_a\]\[cv_b\];.*\[cv_top\]\[cv_bottom\]vstack=inputs=2\[cv\];/);
    expect(fc(args)).toContain('[mv][ma][cv][ca][ov][oa]concat=n=3:v=1:a=1[vout][aout]');
  });

  it('refuses a split without the second crop path, bad speaker spans, or no crop window', () => {
    expect(() => buildRenderArgs(plan({ reframe: { ...SPLIT, second: null } }))).toThrow(/reframe\.second/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SPLIT, speakers: [{ start: 3, end: 2, half: 'top' }] } }))).toThrow(/speaker span/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SPLIT, speakers: [{ start: 0, end: 2, half: 'left' as 'top' }] } }))).toThrow(/speaker span/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SPLIT, cropWidth: 0 } }))).toThrow(/crop window/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SPLIT, second: { keyframes: [{ t: 0, cx: Number.NaN, cy: 0.5 }] } } }))).toThrow(/finite/);
    // Spans on a layout that has no halves are not read.
    expect(() => buildRenderArgs(plan({ reframe: { speakers: [{ start: 3, end: 2, half: 'top' }] } }))).not.toThrow();
  });
});

describe('buildRenderArgs with the screen layout (issue 13)', () => {
  // A 1440x1080 slide area right of a webcam inset: 1080x810 at the top, the face in the 1080x1110 below.
  const SCREEN = {
    layout: 'screen' as const, cropWidth: 420, cropHeight: 432, faceCoverage: 1,
    keyframes: [{ t: 0, cx: 0.125, cy: 0.2 }], screen: { x: 480, y: 0, width: 1440, height: 1080 },
  };
  const fc = (args: string[]) => args[args.indexOf('-filter_complex') + 1]!;

  it('the screen region at full width on top, the face crop filling the panel below', () => {
    expect(fc(buildRenderArgs(plan({ reframe: SCREEN, output: { fps: 30 }, captions: { assPath: '/w/c.ass', fontsDir: '/f' } })))).toBe(
      '[0:v]fps=30,split=2[vout_s][vout_f];'
      + '[vout_s]crop=w=1440:h=1080:x=480:y=0,scale=1080:810,setsar=1[vout_screen];'
      + "[vout_f]crop=w=420:h=432:x='30':y='0',scale=1080:1110,setsar=1[vout_face];"
      + '[vout_screen][vout_face]vstack=inputs=2,ass=filename=/w/c.ass:fontsdir=/f[vout]' + SOUND_30);
  });

  it('a tall region is capped so the face keeps 30 % of the height, centred on the background colour', () => {
    const args = buildRenderArgs(plan({
      reframe: { ...SCREEN, screen: { x: 0, y: 0, width: 608, height: 1080 }, cropWidth: 608, cropHeight: 1080 },
      background: { blur: true, color: '#1c1c1e' },
    }));
    // 608x1080 at full width would be 1918 px tall; capped at 1344 (70 %): 756x1344 centred. The face
    // panel is 1080x576 (15:8): the plan's 608x1080 window is shortened to 608x324 around the same centre.
    expect(fc(args)).toBe('[0:v]split=2[vout_s][vout_f];'
      + '[vout_s]crop=w=608:h=1080:x=0:y=0,scale=756:1344,pad=1080:1344:162:0:color=0x1C1C1E,setsar=1[vout_screen];'
      + "[vout_f]crop=w=608:h=324:x='0':y='54',scale=1080:576,setsar=1[vout_face];"
      + '[vout_screen][vout_face]vstack=inputs=2[vout]' + SOUND_30);
  });

  it('refuses a screen layout without a region or with one outside the source', () => {
    expect(() => buildRenderArgs(plan({ reframe: { ...SCREEN, screen: null } }))).toThrow(/reframe\.screen/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SCREEN, screen: { x: 600, y: 0, width: 1440, height: 1080 } } }))).toThrow(/inside the 1920x1080 source/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SCREEN, screen: { x: -2, y: 0, width: 100, height: 100 } } }))).toThrow(/inside/);
    expect(() => buildRenderArgs(plan({ reframe: { ...SCREEN, screen: { x: 0, y: 0, width: 0, height: 100 } } }))).toThrow(/inside/);
  });
});

describe('layout geometry', () => {
  it('split: two even halves of the picture; an odd half goes below; the crop fitted to a half', () => {
    expect(splitGeometry({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { width: 1080, height: 960 })).toEqual({
      top: { x: 0, y: 0, width: 1080, height: 960 }, bottom: { x: 0, y: 960, width: 1080, height: 960 }, crop: { width: 1080, height: 960 },
    });
    const g = splitGeometry({ width: 360, height: 962 }, { width: 1280, height: 720 }, { width: 400, height: 400 });
    expect([g.top.height, g.bottom.y, g.bottom.height]).toEqual([480, 480, 482]);
  });

  it('panelCrop keeps a crop within 1 % of the aspect, else narrows or shortens it, never past the source', () => {
    expect(panelCrop({ width: 421, height: 433 }, { width: 1080, height: 1110 }, { width: 1920, height: 1080 })).toEqual({ width: 420, height: 432 });
    expect(panelCrop({ width: 1920, height: 1080 }, { width: 1080, height: 960 }, { width: 1920, height: 1080 })).toEqual({ width: 1216, height: 1080 });
    expect(panelCrop({ width: 5000, height: 5000 }, { width: 1, height: 1 }, { width: 641, height: 359 })).toEqual({ width: 358, height: 358 });
  });

  it('screen: band height from the region, the face below; capped at 70 %; the region clamped to the source', () => {
    const g = screenGeometry({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { x: 480, y: 0, width: 1440, height: 1080 });
    expect([g.band.height, g.face.y, g.face.height, g.capped, g.crop]).toEqual([810, 810, 1110, false, null]);
    const wide = screenGeometry({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { x: 0, y: 0, width: 1920, height: 1080 });
    expect(wide.band.height).toBe(608);
    const capped = screenGeometry({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { x: 0, y: 0, width: 608, height: 1080 });
    expect([capped.band.height, capped.screen, capped.face.height]).toEqual([1344, { x: 162, y: 0, width: 756, height: 1344 }, 576]);
    expect(capped.face.height / 1920).toBeGreaterThanOrEqual(0.3);
    // Over the cap by a rounding only (1346 px -> 1344): stretched by 0.15 % to the full band, not padded.
    const nearly = screenGeometry({ width: 1080, height: 1920 }, { width: 1920, height: 1080 }, { x: 0, y: 0, width: 802, height: 1000 });
    expect([nearly.band.height, nearly.capped, nearly.screen]).toEqual([1344, false, { x: 0, y: 0, width: 1080, height: 1344 }]);
    expect(screenGeometry({ width: 1080, height: 1920 }, { width: 1280, height: 720 }, { x: 101, y: 7, width: 5000, height: 5000 }).region)
      .toEqual({ x: 100, y: 6, width: 1180, height: 714 });
  });
});
