// Render plan -> ffmpeg argv, as a pure function (tested with exact arrays). One ffmpeg run renders one
// clip: input seeking, one filter graph (fps cap, reframe, background, captions; split-screen gameplay;
// music mix; a meme intro before and the end-screen outro after, joined with concat), x264 + AAC, faststart.
// Costs behind the choices are measured in DESIGN.md "Performance notes".
import type { CropKeyframe, SpeakerSpan } from '../domain/layout.js';
import { centredPicture, clampCrop, screenGeometry, splitGeometry, type Size } from './layout-graphs.js';
import {
  PLATFORM_LOUDNESS, RENDER_PLAN_VERSION, type RenderCaptionEmoji, type RenderLoudness, type RenderMemeHook, type RenderOutro, type RenderPlan, type SegmentGains,
} from './render-plan.js';

/** The file ffmpeg writes; the runner renames it to output.path only after a successful run. */
export function partialOutputPath(plan: RenderPlan): string {
  return `${plan.output.path}.partial`;
}

export function buildRenderArgs(plan: RenderPlan): string[] {
  assertRenderable(plan);
  const { input, output } = plan;
  const args = [
    '-hide_banner', '-nostdin', '-y', '-v', 'error',
    // Machine-readable progress (out_time_us=...) on stderr instead of the \r-updated stats line.
    '-nostats', '-progress', 'pipe:2',
    // Seeking on the input decodes only the clip's range, and restarts timestamps at 0, so `t` in the
    // crop expressions and the ASS times are clip-relative.
    '-ss', num(input.start), '-t', num(input.end - input.start), '-i', fileArg(input.path),
  ];
  const music = audibleMusic(plan);
  // The track loops (-stream_loop -1) for as long as the clip lasts (-t on the input ends it).
  if (music) args.push('-stream_loop', '-1', '-t', num(input.end - input.start), '-i', fileArg(music.path));
  // Gameplay: seeked to its offset, looped endlessly (on each loop the demuxer restarts at the file's
  // start) and cut to the clip's length, so a loop shorter than the clip never runs out. -an on the
  // input: the gameplay is muted, so its audio is not even demuxed.
  const game = plan.gameVideo;
  if (game) args.push('-stream_loop', '-1', '-ss', num(game.offset), '-t', num(input.end - input.start), '-an', '-i', fileArg(game.path));
  const outro = plan.outro ?? null;
  const meme = plan.memeHook ?? null;
  if (outro || meme) {
    // Inputs of the other segments come after the content's, so the content's input indexes never
    // change: the outro's, then the meme's.
    let next = 1 + (music ? 1 : 0) + (game ? 1 : 0);
    // One picture looped at the card's rate for exactly the card's length.
    const image = outro?.imagePath ? next++ : null;
    if (outro?.imagePath) args.push('-loop', '1', '-framerate', num(outro.fps), '-t', num(outro.seconds), '-i', fileArg(outro.imagePath));
    const sting = outro?.stingPath ? next++ : null;
    if (outro?.stingPath) args.push('-i', fileArg(outro.stingPath));
    // -t on the input: no more of the hook than its own length is ever read.
    const memeInput = meme ? next++ : null;
    if (meme) args.push('-t', num(meme.seconds), '-i', fileArg(meme.path));
    args.push('-filter_complex', buildSegmentsGraph(plan, { image, sting, meme: memeInput }), '-map', '[vout]', '-map', '[aout]');
  } else {
    const audioGraph = input.hasAudio || music ? outputSound(plan, (label) => contentAudioGraph(plan, label)) : null;
    args.push('-filter_complex', audioGraph ? `${buildFilterGraph(plan)};${audioGraph}` : buildFilterGraph(plan), '-map', '[vout]');
    if (audioGraph) args.push('-map', '[aout]');
  }
  args.push('-c:v', 'libx264', '-preset', output.preset, '-crf', num(output.crf), '-pix_fmt', 'yuv420p');
  if (output.x264Params) args.push('-x264-params', output.x264Params);
  // With an outro or a meme there is always audio: theirs, or silence that keeps players' audio track whole.
  if (input.hasAudio || music || outro || meme) args.push('-c:a', 'aac', '-b:a', '128k');
  else args.push('-an');
  // moov before mdat: players (and platform upload checks) can start before the whole file arrives.
  args.push('-movflags', '+faststart', '-f', 'mp4', fileArg(partialOutputPath(plan)));
  return args;
}

/** The -filter_complex graph of the content's picture; its single output is labelled [label] ([vout]). */
export function buildFilterGraph(plan: RenderPlan, label = 'vout'): string {
  const game = plan.gameVideo;
  if (!game) return contentGraph(plan, plan.output.width, plan.output.height, label);
  // Split screen: the content (reframed, backgrounded and captioned for the top half, so captions
  // can never cross the seam) padded to the full frame, and the gameplay scaled to cover the bottom
  // half, cropped to it and overlaid there. overlay rather than vstack: overlay emits one frame per
  // content frame and samples the gameplay at that time, so the output keeps the content's frame
  // rate and timing whatever rate the gameplay file has; vstack would emit a frame for every frame of
  // either input.
  const OW = plan.output.width, HH = plan.output.height / 2;
  const gameInput = audibleMusic(plan) ? 2 : 1;
  const gameFps = plan.output.fps ? `fps=${num(plan.output.fps)},` : '';
  return `${contentGraph(plan, OW, HH, 'top')};`
    + `[top]pad=${OW}:${plan.output.height}:0:0:color=black[frame];`
    + `[${gameInput}:v]${gameFps}scale=${OW}:${HH}:force_original_aspect_ratio=increase,crop=${OW}:${HH},setsar=1[game];`
    + `[frame][game]overlay=x=0:y=${HH}:eof_action=repeat[${label}]`;
}

/** The clip's own picture at OW x OH (the full frame, or the top half of a split screen), labelled [label]. */
function contentGraph(plan: RenderPlan, OW: number, OH: number, label: string): string {
  const { input, output, reframe, background } = plan;
  // Cap the frame rate first, so every later filter processes only the frames that are kept.
  const head = output.fps ? `[0:v]fps=${num(output.fps)},` : '[0:v]';
  const tail = `${captionFilter(plan, label)}[${label}]`;

  if (reframe.layout === 'fill') {
    // Crop then scale: scaling the small window is the cheapest order, also for 4K sources.
    return `${head}${cropFilter(plan)},scale=${OW}:${OH},setsar=1${tail}`;
  }
  if (reframe.layout === 'split') return splitGraph(plan, OW, OH, head, tail, label);
  if (reframe.layout === 'screen') return screenGraph(plan, OW, OH, head, tail, label);

  // fit / square: a picture of the full output width (or height), centred over a background; the
  // geometry is layout-graphs.ts', shared with caption placement.
  const { x, y, width: fw, height: fh } = centredPicture(reframe.layout, { width: OW, height: OH }, input, cropSize(plan));
  const picture = reframe.layout === 'square' ? `${cropFilter(plan)},scale=${fw}:${fh}` : `scale=${fw}:${fh}`;
  if (fw === OW && fh === OH) return `${head}${picture},setsar=1${tail}`;
  if (!background.blur) {
    return `${head}${picture},pad=${OW}:${OH}:${x}:${y}:color=${ffColor(background.color)},setsar=1${tail}`;
  }
  // Blurred background: shrink the source to a quarter of the output, blur there, scale back up.
  // Blurring at full 1080x1920 made the whole render 2.4x slower (DESIGN.md).
  const bw = Math.max(2, even(OW / 4)), bh = Math.max(2, even(OH / 4));
  const radius = Math.max(1, Math.min(Math.round(bw / 20), Math.floor(Math.min(bw, bh) / 4)));
  return `${head}split=2[bg][fg];`
    + `[bg]scale=${bw}:${bh}:force_original_aspect_ratio=increase:flags=fast_bilinear,crop=${bw}:${bh},`
    + `boxblur=${radius}:2,scale=${OW}:${OH}:flags=bilinear,setsar=1[bgb];`
    + `[fg]${picture},setsar=1[fgs];`
    + `[bgb][fgs]overlay=${x}:${y}${tail}`;
}

/**
 * `split` (issue 13): two people of one wide shot, each followed by their own crop path, stacked in two
 * halves of the picture. One decode: the (fps-capped) frames are split in two, each branch crops its
 * window and scales it to its half, and vstack joins them; captions go over the stacked picture.
 * Scaling two half-height windows costs about what fill's one full window does (docs/benchmarks.md).
 */
function splitGraph(plan: RenderPlan, OW: number, OH: number, head: string, tail: string, label: string): string {
  const { input, reframe } = plan;
  const g = splitGeometry({ width: OW, height: OH }, input, { width: reframe.cropWidth, height: reframe.cropHeight });
  const crop = (keyframes: CropKeyframe[]) => cropWindow(plan, keyframes, g.crop.width, g.crop.height);
  const spans = reframe.speakers ?? [];
  return `${head}split=2[${label}_a][${label}_b];`
    + `[${label}_a]${crop(reframe.keyframes)},scale=${OW}:${g.top.height},setsar=1${dimWhile(spans, 'bottom')}[${label}_top];`
    + `[${label}_b]${crop(reframe.second?.keyframes ?? [])},scale=${OW}:${g.bottom.height},setsar=1${dimWhile(spans, 'top')}[${label}_bottom];`
    + `[${label}_top][${label}_bottom]vstack=inputs=2${tail}`;
}

/**
 * The silent half of a split while the other one speaks: luma to 65 %, colour to 60 %, so the eye goes
 * to the speaker without the silent person disappearing. A lookup table (lutyuv) is the cheapest
 * per-pixel filter ffmpeg has, and it only runs while a span is on; outside the spans (unknown,
 * cross-talk) both halves show as they are. A bar at the seam was the other option, but the seam is
 * where split captions sit.
 */
export const SILENT_HALF_DIM = 'lutyuv=y=val*0.65:u=128+(val-128)*0.6:v=128+(val-128)*0.6';

/** `,<dim>:enable='between(t,a,b)+...'` over the spans where `speaking` speaks, or nothing. */
function dimWhile(spans: readonly SpeakerSpan[], speaking: SpeakerSpan['half']): string {
  const on = spans.filter((s) => s.half === speaking);
  if (on.length === 0) return '';
  // Quoted at the graph level so the commas inside between() do not split the chain.
  return `,${SILENT_HALF_DIM}:enable='${on.map((s) => `between(t,${num(s.start)},${num(s.end)})`).join('+')}'`;
}

/**
 * `screen` (issue 13): the screen region cropped and scaled to the picture's full width at the top, the
 * presenter's face crop (the plan's keyframes) filling the panel below; geometry in layout-graphs.ts
 * (a region too tall for the face to keep SCREEN_MIN_FACE_SHARE is scaled to fit and centred on the
 * background colour). One decode, split=2, two crops and scales, vstack.
 */
function screenGraph(plan: RenderPlan, OW: number, OH: number, head: string, tail: string, label: string): string {
  const { input, reframe, background } = plan;
  if (!reframe.screen) throw new RangeError('a screen layout needs its screen region (reframe.screen)');
  const g = screenGeometry({ width: OW, height: OH }, input, reframe.screen, { width: reframe.cropWidth, height: reframe.cropHeight });
  const r = g.region, face = g.crop!;
  const pad = g.capped ? `,pad=${OW}:${g.band.height}:${g.screen.x}:0:color=${ffColor(background.color)}` : '';
  return `${head}split=2[${label}_s][${label}_f];`
    + `[${label}_s]crop=w=${r.width}:h=${r.height}:x=${r.x}:y=${r.y},scale=${g.screen.width}:${g.screen.height}${pad},setsar=1[${label}_screen];`
    + `[${label}_f]${cropWindow(plan, reframe.keyframes, face.width, face.height)},scale=${OW}:${g.face.height},setsar=1[${label}_face];`
    + `[${label}_screen][${label}_face]vstack=inputs=2${tail}`;
}

export { PLATFORM_LOUDNESS };

/** Speech level assumed when the clip has no voice to follow: the loudness platforms normalise to. */
export const REFERENCE_SPEECH_LUFS = -16;
/** Fades of the music bed (seconds), shortened for very short clips. */
export const MUSIC_FADE_IN = 1;
export const MUSIC_FADE_OUT = 1.5;
/**
 * Ducking: the key (the voice) is first brought to REFERENCE_SPEECH_LUFS by level_sc, so the same
 * threshold works for quiet and loud sources. Speech there sits ~15 dB over the threshold, which at
 * 4:1 pulls the music down ~11 dB while someone speaks; the 400 ms release lets it swell back in pauses.
 */
export const DUCK = { threshold: 0.02, ratio: 4, attack: 20, release: 400 } as const;
/**
 * Fade (seconds) at both edges of the content's sound: the cut sits in a pause (clip-edges.ts), but a
 * pause is room tone, not digital silence, and a waveform that starts or stops mid-cycle clicks.
 */
export const EDGE_FADE_SEC = 0.01;

/**
 * The limiter's ceiling sits this far under the true-peak limit: AAC encoding (ffmpeg's aac, 128k)
 * raised the true peak of limited speech by 0.1-0.4 dB, so a ceiling at the limit itself measured
 * -0.5 to -0.9 dBTP on the file; 1 dB under it measured -1.6 to -1.9 dBTP (docs/benchmarks.md).
 */
export const TRUE_PEAK_MARGIN_DB = 1;
/**
 * The most a segment is raised: beyond this a "quiet" clip is mostly noise (hum, room tone), and
 * raising it further would only make the noise loud. A silent segment (no measured loudness) is not raised.
 */
export const MAX_LOUDNESS_GAIN_DB = 30;
/** The end card's sting sits this far under the speech: a bell that reads as the end, not a jump in level. */
export const STING_UNDER_SPEECH_LU = 3;

/** The plan's music when it is audible (volume > 0), else null (volume 0 means no music at all). */
function audibleMusic(plan: RenderPlan): NonNullable<RenderPlan['music']> | null {
  const m = plan.music;
  return m && m.volume > 0 ? m : null;
}

/**
 * Music gain (dB) that puts the track's integrated loudness at the voice's, then musicVolume below it:
 * 100 = as loud as the voice, 50 = -6 dB, 10 = -20 dB (before ducking).
 */
export function musicGainDb(music: NonNullable<RenderPlan['music']>): number {
  const voice = music.speechLufs ?? REFERENCE_SPEECH_LUFS;
  return voice - music.trackLufs + 20 * Math.log10(Math.min(100, music.volume) / 100);
}

/**
 * The audio part of the graph; its output is labelled [label]. Voice and music are brought to one
 * format (sidechaincompress and amix need equal rates and layouts), the music is set to its gain,
 * faded in and out, ducked by the voice and summed with it unnormalised (amix would otherwise halve
 * both). Without platform loudness a limiter with auto-level off catches peaks of the sum; with it,
 * the one true-peak limiter at the end of the whole short does (outputSound). `tail` continues the
 * chain before the label (the edge fades and the loudness gain).
 */
export function buildMusicGraph(plan: RenderPlan, music: NonNullable<RenderPlan['music']>, label = 'aout', tail = ''): string {
  const duration = plan.input.end - plan.input.start;
  const fadeIn = Math.min(MUSIC_FADE_IN, duration / 4), fadeOut = Math.min(MUSIC_FADE_OUT, duration / 4);
  // Mono or stereo in, stereo out at unity gain: ffmpeg's own mono->stereo upmix puts each side 3 dB
  // down (measured), which would make the voice quieter with music than without. The pan copies a mono
  // centre to both sides and passes stereo through untouched; other layouts are first folded to stereo.
  const format = STEREO_48K;
  const bed = `[1:a]${format},volume=${num(musicGainDb(music))}dB,`
    + `afade=t=in:st=0:d=${num(fadeIn)},afade=t=out:st=${num(duration - fadeOut)}:d=${num(fadeOut)}`;
  if (!plan.input.hasAudio) return `${bed}${tail}[${label}]`;
  const keyLevel = Math.min(64, Math.max(0.015625, 10 ** ((REFERENCE_SPEECH_LUFS - (music.speechLufs ?? REFERENCE_SPEECH_LUFS)) / 20)));
  const limiter = plan.loudness ? '' : ',alimiter=limit=0.98:level=0';
  // apad + whole_dur: a source whose audio stops early still keys and carries the mix to the end.
  return `[0:a]${format},apad=whole_dur=${num(duration)},asplit=2[voice][key];`
    + `${bed}[bed];`
    + `[bed][key]sidechaincompress=threshold=${DUCK.threshold}:ratio=${DUCK.ratio}:attack=${DUCK.attack}:release=${DUCK.release}:level_sc=${num(keyLevel)}[ducked];`
    + `[voice][ducked]amix=inputs=2:duration=first:dropout_transition=0:normalize=0${limiter}${tail}[${label}]`;
}

/** Mono or stereo in, 48 kHz float stereo out at unity gain (see buildMusicGraph). */
const STEREO_48K = 'aformat=channel_layouts=mono|stereo,pan=stereo|FL=FL+FC|FR=FR+FC,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';
/** Fade at the end of the sting, so a 1 s card cuts the 1.09 s bell without a click. */
export const STING_FADE_OUT = 0.15;

/**
 * The whole graph of a clip with a meme intro and/or an end card; outputs [vout] and [aout]. Each
 * segment is a picture and a sound of exactly its length: the meme ([mv], [ma]), the content ([cv],
 * [ca]) and the card ([ov], [oa]), joined in that order by one concat filter, so the extra segments
 * cost only their own frames and no second encode.
 * Music is part of the content's sound: it starts with the content (the meme has its own sound),
 * fades out over the content's last seconds (buildMusicGraph), and the card has only the sting: the
 * bell reads as the end, not as part of the song.
 */
export function buildSegmentsGraph(plan: RenderPlan, inputs: { image: number | null; sting: number | null; meme: number | null }): string {
  const parts = [buildFilterGraph(plan, 'cv'), contentAudioGraph(plan, 'ca')];
  const segments = ['[cv][ca]'];
  const outro = plan.outro;
  if (outro) {
    parts.push(outroCardGraph(plan, outro, inputs));
    segments.push('[ov][oa]');
  }
  const meme = plan.memeHook;
  if (meme) {
    if (inputs.meme === null) throw new RangeError('a meme hook needs its input index');
    parts.push(memeIntroGraph(plan, meme, inputs.meme));
    segments.unshift('[mv][ma]');
  }
  return outputSound(plan, (label) => `${parts.join(';')};${segments.join('')}concat=n=${segments.length}:v=1:a=1[vout][${label}]`);
}

/** The plan's segment gains (dB); all 0 without platform loudness. */
export function segmentGains(plan: RenderPlan): SegmentGains {
  const loudness = plan.loudness;
  if (!loudness) return { content: 0, meme: 0, sting: 0 };
  if (!loudness.gainsDb) throw new RangeError('the loudness of the clip\'s segments must be measured before its render (renderClip does)');
  return loudness.gainsDb;
}

/**
 * The loudness each segment is brought to: the content (voice and music as mixed) and the meme intro
 * to the target, the sting STING_UNDER_SPEECH_LU under it, so the whole short measures the target and
 * the music and sting keep their levels relative to the speech.
 */
export function segmentTargetLufs(loudness: Pick<RenderLoudness, 'targetLufs'>, segment: Segment): number {
  return segment === 'sting' ? loudness.targetLufs - STING_UNDER_SPEECH_LU : loudness.targetLufs;
}

/**
 * The short's sound [aout] from `graph(label)`, a graph whose sound ends in [label]: through the
 * true-peak limiter when the plan has platform loudness, else as it is. The limiter runs at 192 kHz: ffmpeg 5.1's
 * alimiter does not oversample, so at 48 kHz it would let the peaks between samples through (4x is
 * what ebur128 itself uses to measure true peak). latency=1 removes its lookahead delay, so the sound
 * stays in sync with the picture.
 */
function outputSound(plan: RenderPlan, graph: (label: string) => string): string {
  const loudness = plan.loudness;
  if (!loudness) return graph('aout');
  return `${graph('araw')};[araw]${truePeakLimiter(loudness)}[aout]`;
}

/** The limiter chain (no labels) that keeps the true peak TRUE_PEAK_MARGIN_DB under the plan's limit. */
function truePeakLimiter(loudness: Pick<RenderLoudness, 'truePeakDb'>): string {
  const ceiling = 10 ** ((loudness.truePeakDb - TRUE_PEAK_MARGIN_DB) / 20);
  return `aresample=192000,alimiter=limit=${num4(ceiling)}:level=0:latency=1,aresample=48000`;
}

/**
 * The content's sound as a segment: stereo 48 kHz of exactly the content's length (music mixed in),
 * faded in and out over EDGE_FADE_SEC and raised by `gainDb` (default: the plan's content gain).
 */
export function contentAudioGraph(plan: RenderPlan, label: string, gainDb = segmentGains(plan).content): string {
  const duration = plan.input.end - plan.input.start;
  const fade = Math.min(EDGE_FADE_SEC, duration / 4);
  const tail = `,afade=t=in:st=0:d=${num(fade)},afade=t=out:st=${num(duration - fade)}:d=${num(fade)}${volume(gainDb)}`;
  const music = audibleMusic(plan);
  if (music) return buildMusicGraph(plan, music, label, tail);
  return segmentSound(plan.input.hasAudio ? '0:a' : null, num(duration), label, tail);
}

/**
 * The sound of one concat segment: the stream `input` in the joined format, padded with silence and cut
 * to exactly `seconds` (so the next segment's sound starts with its picture), then `tail`; silence of
 * that length when there is no stream.
 */
function segmentSound(input: string | null, seconds: string, label: string, tail = ''): string {
  if (input === null) return `anullsrc=r=48000:cl=stereo:d=${seconds}[${label}]`;
  return `[${input}]${STEREO_48K},apad=whole_dur=${seconds},atrim=end=${seconds}${tail}[${label}]`;
}

/**
 * The meme intro as a segment ([mv], [ma]): its picture converted to the output's rate, scaled to
 * cover the whole frame (also before a split screen: the meme plays full-screen first) and cropped
 * to it; a file shorter than `seconds` holds its last frame, a longer one is cut. Its sound is brought
 * to the content's format and padded or cut to the same length; silence when the file has none.
 */
function memeIntroGraph(plan: RenderPlan, meme: RenderMemeHook, input: number): string {
  const { width: W, height: H } = plan.output;
  const S = num(meme.seconds);
  const picture = `[${input}:v]fps=${num(meme.fps)},scale=${W}:${H}:force_original_aspect_ratio=increase,crop=${W}:${H},setsar=1,format=yuv420p,`
    + `tpad=stop_mode=clone:stop_duration=${S},trim=duration=${S},setpts=PTS-STARTPTS[mv]`;
  const sound = memeSound(meme, input, 'ma', segmentGains(plan).meme);
  return `${picture};${sound}`;
}

/** The meme intro's sound as a segment ([label]), raised by gainDb. */
function memeSound(meme: RenderMemeHook, input: number, label: string, gainDb: number): string {
  return segmentSound(meme.hasAudio ? `${input}:a` : null, num(meme.seconds), label, volume(gainDb));
}

/** The end card as a segment ([ov], [oa]): the backdrop (or the fitted image), its text, the sting. */
function outroCardGraph(plan: RenderPlan, outro: RenderOutro, inputs: { image: number | null; sting: number | null }): string {
  const S = num(outro.seconds);
  const { width: W, height: H } = plan.output;
  const backdrop = `color=c=${ffColor(plan.background.color)}:s=${W}x${H}:r=${num(outro.fps)}:d=${S},setsar=1`;
  const text = outro.assPath ? `,ass=filename=${filterPath(outro.assPath)}:fontsdir=${filterPath(outro.fontsDir)}` : '';
  // An image is fitted inside the frame (any ratio) and centred on the solid backdrop; overlay (not
  // pad) so a transparent PNG shows the backdrop through it.
  const card = inputs.image === null
    ? `${backdrop}${text},format=yuv420p[ov]`
    : `${backdrop}[obg];[${inputs.image}:v]scale=${W}:${H}:force_original_aspect_ratio=decrease,setsar=1[oimg];`
      + `[obg][oimg]overlay=x=(main_w-overlay_w)/2:y=(main_h-overlay_h)/2${text},format=yuv420p[ov]`;
  return `${card};${stingSound(outro, inputs.sting, 'oa', segmentGains(plan).sting)}`;
}

/** The end card's sound as a segment ([label]): the sting faded out at the card's end, raised by gainDb. */
function stingSound(outro: RenderOutro, input: number | null, label: string, gainDb: number): string {
  return segmentSound(input === null ? null : `${input}:a`, num(outro.seconds), label,
    `,afade=t=out:st=${num(Math.max(0, outro.seconds - STING_FADE_OUT))}:d=${num(STING_FADE_OUT)}${volume(gainDb)}`);
}

/** `,volume=<gain>dB`, or nothing for a gain that rounds to 0. */
function volume(gainDb: number): string {
  const g = Math.round(gainDb * 100) / 100;
  return g === 0 ? '' : `,volume=${g}dB`;
}

export type Segment = 'content' | 'meme' | 'sting';

/**
 * The argv of a measuring pass over one segment of the short (measureSegmentGains runs it before the
 * render): the segment's sound exactly as the render mixes it, raised by `gainDb` and, with `limited`,
 * through the render's true-peak limiter, into ebur128 (integrated loudness and true peak) and the null
 * muxer; null when the segment has no sound at all. Audio only: no picture is decoded.
 */
export function segmentLoudnessArgs(plan: RenderPlan, segment: Segment, opts: { gainDb?: number; limited?: boolean } = {}): string[] | null {
  const gain = opts.gainDb ?? 0;
  const limiter = opts.limited && plan.loudness ? `${truePeakLimiter(plan.loudness)},` : '';
  const head = ['-hide_banner', '-nostdin', '-nostats', '-v', 'info'];
  const measure = (graph: string, label: string) => ['-filter_complex', `${graph};[${label}]${limiter}ebur128=peak=true:framelog=verbose[measured]`, '-map', '[measured]', '-f', 'null', '-'];
  const duration = num(plan.input.end - plan.input.start);
  if (segment === 'content') {
    const music = audibleMusic(plan);
    if (!plan.input.hasAudio && !music) return null;
    // The same inputs in the same order as the render, so [0:a] and [1:a] mean the same streams.
    const args = [...head, '-ss', num(plan.input.start), '-t', duration, '-i', fileArg(plan.input.path)];
    if (music) args.push('-stream_loop', '-1', '-t', duration, '-i', fileArg(music.path));
    return [...args, ...measure(contentAudioGraph(plan, 'ca', gain), 'ca')];
  }
  if (segment === 'meme') {
    const meme = plan.memeHook;
    if (!meme?.hasAudio) return null;
    return [...head, '-t', num(meme.seconds), '-i', fileArg(meme.path), ...measure(memeSound(meme, 0, 'ma', gain), 'ma')];
  }
  const outro = plan.outro;
  if (!outro?.stingPath) return null;
  return [...head, '-i', fileArg(outro.stingPath), ...measure(stingSound(outro, 0, 'oa', gain), 'oa')];
}

/**
 * Top-left crop offset (source px) as an ffmpeg expression of t (clip-relative seconds), linear between
 * keyframes and held before the first / after the last. Written as a sum of clipped ramps,
 * `x0 + Σ Δi·clip((t-ti)/(ti+1-ti), 0, 1)`, which stays flat however many keyframes there are (nested
 * if() grows one level per keyframe). A single keyframe, or none moving, gives a constant.
 */
export function cropExpression(keyframes: CropKeyframe[], axis: 'x' | 'y', cropSize: number, sourceSize: number): string {
  const maxOffset = Math.max(0, sourceSize - cropSize);
  const offset = (c: number) => Math.min(maxOffset, Math.max(0, Math.round(c * sourceSize - cropSize / 2)));
  const points = [...keyframes].sort((a, b) => a.t - b.t).map((k) => ({ t: k.t, v: offset(axis === 'x' ? k.cx : k.cy) }));
  const first = points[0];
  if (!first) return String(Math.round(maxOffset / 2));
  let expr = String(first.v);
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!, b = points[i]!;
    const delta = b.v - a.v;
    if (delta === 0) continue;
    const dt = b.t - a.t;
    const since = a.t >= 0 ? `t-${num(a.t)}` : `t+${num(-a.t)}`;
    const ramp = dt >= 0.001 ? `clip((${since})/${num(dt)},0,1)` : `gte(${since},0)`;
    expr += `${delta > 0 ? '+' : '-'}${Math.abs(delta)}*${ramp}`;
  }
  return expr;
}

/** Crop window clamped to the source and made even (yuv420p chroma). */
function cropSize(plan: RenderPlan): Size {
  return clampCrop({ width: plan.reframe.cropWidth, height: plan.reframe.cropHeight }, plan.input);
}

function cropFilter(plan: RenderPlan): string {
  const { width, height } = cropSize(plan);
  return cropWindow(plan, plan.reframe.keyframes, width, height);
}

/** A cw x ch window (even, inside the source) following `keyframes`. */
function cropWindow(plan: RenderPlan, keyframes: CropKeyframe[], cw: number, ch: number): string {
  const x = cropExpression(keyframes, 'x', cw, plan.input.width);
  const y = cropExpression(keyframes, 'y', ch, plan.input.height);
  // Quoted at the graph level so the commas inside clip(...) do not split the filter chain.
  return `crop=w=${cw}:h=${ch}:x='${x}':y='${y}'`;
}

/** Captions at the end of the content chain: libass, then the emoji images (labels are prefixed with the content's label, so they stay unique). */
function captionFilter(plan: RenderPlan, label: string): string {
  if (!plan.captions) return '';
  const { assPath, fontsDir, emoji } = plan.captions;
  return `,ass=filename=${filterPath(assPath)}:fontsdir=${filterPath(fontsDir)}${emojiOverlayChain(emoji ?? [], label)}`;
}

/** Seconds an emoji takes to drop into its place when its phrase appears. */
export const EMOJI_POP_SEC = 0.2;

/**
 * Emoji images over the captioned picture, continuing a filter chain (the caller appends the output
 * label). Each PNG is read by a `movie` source inside the graph, not an ffmpeg input, so the input
 * indexes stay exactly as buildRenderArgs numbers them; it is scaled once (one frame, repeated by
 * overlay after its end) and overlaid only while its phrase is up, dropping a quarter of its size into
 * place over EMOJI_POP_SEC.
 */
export function emojiOverlayChain(emoji: readonly RenderCaptionEmoji[], label: string): string {
  return emoji.map((e, i) => {
    const below = `${label}_cap${i}`, image = `${label}_emoji${i}`;
    const start = num(e.start);
    // Quoted at the graph level so the commas inside the expressions do not split the chain.
    const y = `${Math.round(e.y)}-${Math.round(e.size / 4)}*pow(max(0,1-(t-${start})/${EMOJI_POP_SEC}),2)`;
    return `[${below}];movie=filename=${filterPath(e.path)},scale=${e.size}:${e.size}[${image}];`
      + `[${below}][${image}]overlay=x=${Math.round(e.x)}:y='${y}':eval=frame:enable='between(t,${start},${num(e.end)})'`;
  }).join('');
}

/**
 * A path as a filter option value inside a filter graph: first the option-value escaping (\ ' :),
 * then the graph escaping (\ ' [ ] , ;), as ffmpeg-filters "Notes on filtergraph escaping" describes.
 */
export function filterPath(p: string): string {
  const optionLevel = p.replace(/[\\':]/g, (c) => `\\${c}`);
  return optionLevel.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/** A local path ffmpeg must not read as an option or a protocol URL (`-x.mp4`, `concat:a|b`). */
export function fileArg(p: string): string {
  return p.startsWith('-') || /^[a-z][a-z0-9+.-]*:/i.test(p) ? `file:${p}` : p;
}

function ffColor(hex: string): string {
  if (!/^#[0-9a-f]{6}$/i.test(hex)) throw new RangeError(`background colour must be #RRGGBB, got ${hex}`);
  return `0x${hex.slice(1).toUpperCase()}`;
}

function assertRenderable(plan: RenderPlan): void {
  if (plan.version !== RENDER_PLAN_VERSION) throw new RangeError(`render plan version ${String(plan.version)} is not ${RENDER_PLAN_VERSION}`);
  const { width, height } = plan.output;
  if (!(width > 0 && height > 0 && width % 2 === 0 && height % 2 === 0)) {
    throw new RangeError(`output size must be positive and even (yuv420p), got ${width}x${height}`);
  }
  if (!(plan.input.width > 0 && plan.input.height > 0)) throw new RangeError('input has no picture size');
  if (!(plan.input.end > plan.input.start && plan.input.start >= 0)) throw new RangeError('clip range is empty');
  const g = plan.gameVideo;
  if (g) {
    // Each half must be even for yuv420p.
    if (height % 4 !== 0) throw new RangeError(`a split screen needs an output height divisible by 4, got ${height}`);
    if (!(g.duration > 0 && g.offset >= 0 && g.offset < g.duration)) throw new RangeError(`game video offset ${g.offset} must lie inside its ${g.duration} s`);
  }
  assertLayout(plan);
  const o = plan.outro;
  if (o) {
    if (!(o.seconds >= 1 && o.seconds <= 3)) throw new RangeError(`outro must last 1-3 s, got ${o.seconds}`);
    if (!(o.fps > 0 && o.fps <= 120)) throw new RangeError(`outro frame rate must be positive, got ${o.fps}`);
  }
  const mh = plan.memeHook;
  if (mh) {
    // At least a millisecond: num() writes lengths with three decimals.
    if (!(mh.seconds >= 0.001 && Number.isFinite(mh.seconds))) throw new RangeError(`meme hook must last a positive number of seconds, got ${mh.seconds}`);
    if (!(mh.fps > 0 && mh.fps <= 120)) throw new RangeError(`meme hook frame rate must be positive, got ${mh.fps}`);
  }
  const l = plan.loudness;
  if (l) {
    if (!(l.targetLufs >= -40 && l.targetLufs <= -5)) throw new RangeError(`loudness target must be -40 to -5 LUFS, got ${l.targetLufs}`);
    if (!(l.truePeakDb >= -9 && l.truePeakDb <= 0)) throw new RangeError(`true-peak limit must be -9 to 0 dBTP, got ${l.truePeakDb}`);
    const gains = l.gainsDb ? [l.gainsDb.content, l.gainsDb.meme, l.gainsDb.sting] : [];
    if (gains.some((v) => !Number.isFinite(v) || v > MAX_LOUDNESS_GAIN_DB)) throw new RangeError(`segment gains must be finite and at most ${MAX_LOUDNESS_GAIN_DB} dB`);
  }
  const m = plan.music;
  if (m) {
    if (!(m.volume >= 0 && m.volume <= 100)) throw new RangeError(`music volume must be 0-100, got ${m.volume}`);
    if (!Number.isFinite(m.trackLufs) || (m.speechLufs !== null && !Number.isFinite(m.speechLufs))) throw new RangeError('music loudness must be a finite LUFS value');
  }
}

/** What the split and screen layouts need beyond the single-crop ones. */
function assertLayout(plan: RenderPlan): void {
  const { reframe: r, input } = plan;
  if (r.layout !== 'split' && r.layout !== 'screen') return;
  const pictureHeight = plan.gameVideo ? plan.output.height / 2 : plan.output.height;
  if (!(r.cropWidth >= 2 && r.cropHeight >= 2)) throw new RangeError(`the ${r.layout} layout needs a crop window, got ${r.cropWidth}x${r.cropHeight}`);
  if (!r.keyframes.every(finiteKeyframe)) throw new RangeError('crop keyframes must be finite numbers');
  if (r.layout === 'split') {
    if (!r.second) throw new RangeError('a split layout needs the bottom half\'s crop path (reframe.second)');
    if (!r.second.keyframes.every(finiteKeyframe)) throw new RangeError('crop keyframes must be finite numbers');
    if (pictureHeight < 8) throw new RangeError(`a split layout needs a picture at least 8 px tall, got ${pictureHeight}`);
    for (const s of r.speakers ?? []) {
      if (!(Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start) || (s.half !== 'top' && s.half !== 'bottom')) {
        throw new RangeError(`speaker span ${JSON.stringify(s)} must have start < end and half top or bottom`);
      }
    }
    return;
  }
  const s = r.screen;
  if (!s) throw new RangeError('a screen layout needs its screen region (reframe.screen)');
  const inside = [s.x, s.y, s.width, s.height].every(Number.isFinite) && s.x >= 0 && s.y >= 0 && s.width >= 2 && s.height >= 2
    && s.x + s.width <= input.width && s.y + s.height <= input.height;
  if (!inside) throw new RangeError(`screen region ${s.width}x${s.height} at ${s.x},${s.y} must lie inside the ${input.width}x${input.height} source`);
  if (pictureHeight < 8) throw new RangeError(`a screen layout needs a picture at least 8 px tall, got ${pictureHeight}`);
}

function finiteKeyframe(k: CropKeyframe): boolean {
  return Number.isFinite(k.t) && Number.isFinite(k.cx) && Number.isFinite(k.cy);
}

/** Seconds and sizes with at most millisecond precision, no exponent, no trailing zeros. */
function num(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}
/** A level with four decimals (0.0001 = 0.001 dB at the ceiling). */
function num4(n: number): string {
  return String(Math.round(n * 10000) / 10000);
}
function even(n: number): number { return Math.max(0, Math.round(n / 2) * 2); }
