// The pre-upload checks (platforms.md section 4): the clip's facts read once with ffprobe, then held
// against each platform's published limits, so a clip a platform would refuse fails with media_rejected
// before a byte is sent (and before a daily quota is spent on it). Our renders (1080x1920 H.264/AAC,
// faststart, 30 fps) pass all three; what fails is an edited or imported file, or an over-long clip.
import { open, stat } from 'node:fs/promises';
import { defaultMediaRunner } from '../media/local-runner.js';
import { ProcessError } from '../media/process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { PublishError, type ClipMedia, type Platform } from './types.js';

interface Stream {
  codec_type?: string; codec_name?: string; width?: number; height?: number; avg_frame_rate?: string; r_frame_rate?: string;
  bit_rate?: string; sample_rate?: string; channels?: number; side_data_list?: { rotation?: number }[]; tags?: Record<string, string>;
}

function rate(r: string | undefined): number {
  const [n, d] = (r ?? '').split('/').map(Number);
  return n && d ? n / d : 0;
}

/**
 * Whether the movie index (moov) comes before the media data (mdat) among the file's top-level boxes:
 * "fast start", which photo_site requires. False for a file that is not ISO BMFF.
 */
export async function isFaststart(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(16);
    for (let at = 0, boxes = 0; at + 8 <= size && boxes < 64; boxes++) {
      const { bytesRead } = await fh.read(head, 0, 16, at);
      if (bytesRead < 8) return false;
      let len = head.readUInt32BE(0);
      const type = head.toString('latin1', 4, 8);
      if (type === 'moov') return true;
      if (type === 'mdat') return false;
      if (len === 1) len = Number(head.readBigUInt64BE(8));
      else if (len === 0) return false;
      if (len < 8) return false;
      at += len;
    }
    return false;
  } finally {
    await fh.close();
  }
}

/**
 * The clip's facts. A file that is gone is video_missing (spec 7.3: re-create the clip); one ffprobe
 * cannot read, or without a picture, is media_rejected (re-export it).
 */
export async function clipMedia(file: string, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<ClipMedia> {
  let sizeBytes: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOENT' });
    sizeBytes = st.size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new PublishError('video_missing', "the clip's video file is no longer there; create the clip again");
    throw e;
  }
  let json: { streams?: Stream[]; format?: { duration?: string; format_name?: string; bit_rate?: string } };
  try {
    const { stdout } = await media.run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { signal });
    json = JSON.parse(stdout) as typeof json;
  } catch (e) {
    if (e instanceof ProcessError) throw new PublishError('media_rejected', 'the clip file is not a readable video; export it again');
    throw e;
  }
  const streams = json.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !['mjpeg', 'png', 'bmp'].includes(s.codec_name ?? ''));
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (!video) throw new PublishError('media_rejected', 'the clip file has no video stream; export it again');
  const rotation = Math.abs(video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? Number(video.tags?.rotate ?? 0));
  const swap = rotation === 90 || rotation === 270;
  const bitrate = Number(video.bit_rate ?? NaN);
  return {
    file,
    sizeBytes,
    durationSec: Number(json.format?.duration ?? 0),
    width: (swap ? video.height : video.width) ?? 0,
    height: (swap ? video.width : video.height) ?? 0,
    fps: rate(video.avg_frame_rate) || rate(video.r_frame_rate),
    videoCodec: video.codec_name ?? '',
    audioCodec: audio?.codec_name ?? null,
    faststart: await isFaststart(file),
    container: json.format?.format_name ?? '',
    videoBitrate: Number.isFinite(bitrate) ? bitrate : null,
    audioSampleRate: audio?.sample_rate ? Number(audio.sample_rate) : null,
    audioChannels: audio?.channels ?? null,
  };
}

interface Limits {
  containers: string[];
  codecs: string[];
  faststart: boolean;
  fps: [number, number] | null;
  minSide: number;
  maxSide: number;
  maxWidth: number;
  /** width/height bounds. */
  aspect: [number, number];
  durationSec: [number, number];
  maxBytes: number;
  maxVideoBitrate: number | null;
  audio: { codecs: string[]; maxRate: number; maxChannels: number } | null;
}

const GB = 1024 ** 3;

/** Section 4's envelope per platform. video_site's 180 s and portrait shape are what makes an upload a Short. */
export const MEDIA_LIMITS: Record<Platform, Limits> = {
  video_site: {
    containers: ['mp4', 'mov', 'webm', 'matroska'], codecs: ['h264', 'hevc', 'vp9', 'av1', 'vp8', 'mpeg4'], faststart: false, fps: null,
    minSide: 1, maxSide: 7680, maxWidth: 7680, aspect: [0, 1], durationSec: [1, 180], maxBytes: 256 * GB, maxVideoBitrate: null, audio: null,
  },
  photo_site: {
    containers: ['mp4', 'mov'], codecs: ['h264', 'hevc'], faststart: true, fps: [23, 60],
    minSide: 1, maxSide: 10_000, maxWidth: 1920, aspect: [0.01, 10], durationSec: [3, 900], maxBytes: 300 * 1024 * 1024,
    maxVideoBitrate: 25_000_000, audio: { codecs: ['aac'], maxRate: 48_000, maxChannels: 2 },
  },
  short_video_site: {
    containers: ['mp4', 'mov', 'webm'], codecs: ['h264', 'hevc', 'vp8', 'vp9'], faststart: false, fps: [23, 60],
    minSide: 360, maxSide: 4096, maxWidth: 4096, aspect: [0, Infinity], durationSec: [1, 600], maxBytes: 4 * GB, maxVideoBitrate: null, audio: null,
  },
};

/** Every limit the clip breaks on `platform`, as plain sentences (empty when it passes). */
export function mediaProblems(platform: Platform, m: ClipMedia): string[] {
  const L = MEDIA_LIMITS[platform];
  const out: string[] = [];
  const formats = (m.container ?? '').split(',');
  if (m.container && !formats.some((f) => L.containers.includes(f))) out.push(`the container (${m.container}) is not one of ${L.containers.join(', ')}`);
  if (!L.codecs.includes(m.videoCodec)) out.push(`the video codec ${m.videoCodec || 'unknown'} is not accepted (${L.codecs.join(', ')})`);
  if (L.faststart && !m.faststart) out.push('the file\'s index (moov) is not at the front (export with "faststart")');
  if (L.fps && (m.fps < L.fps[0] - 0.01 || m.fps > L.fps[1] + 0.01)) out.push(`the frame rate ${round(m.fps)} fps is outside ${L.fps[0]}-${L.fps[1]} fps`);
  if (Math.min(m.width, m.height) < L.minSide || Math.max(m.width, m.height) > L.maxSide) out.push(`the picture ${m.width}x${m.height} is outside ${L.minSide}-${L.maxSide} px per side`);
  if (m.width > L.maxWidth) out.push(`the picture is ${m.width} px wide; at most ${L.maxWidth}`);
  const aspect = m.height ? m.width / m.height : 0;
  if (aspect < L.aspect[0] || aspect > L.aspect[1]) {
    out.push(platform === 'video_site' ? `the picture ${m.width}x${m.height} is landscape; a Short must be vertical or square` : `the aspect ratio ${round(aspect)} is outside ${L.aspect[0]}-${L.aspect[1]}`);
  }
  if (m.durationSec < L.durationSec[0]) out.push(`the clip is ${round(m.durationSec)} s long; at least ${L.durationSec[0]} s`);
  if (m.durationSec > L.durationSec[1]) {
    out.push(platform === 'video_site' ? `the clip is ${round(m.durationSec)} s long; a Short is at most 180 s` : `the clip is ${round(m.durationSec)} s long; at most ${L.durationSec[1]} s`);
  }
  if (m.sizeBytes > L.maxBytes) out.push(`the file is ${Math.round(m.sizeBytes / 1024 / 1024)} MB; at most ${Math.round(L.maxBytes / 1024 / 1024)} MB`);
  if (L.maxVideoBitrate && m.videoBitrate && m.videoBitrate > L.maxVideoBitrate) out.push(`the video bit rate ${round(m.videoBitrate / 1e6)} Mbps is over ${L.maxVideoBitrate / 1e6} Mbps`);
  if (L.audio && m.audioCodec) {
    if (!L.audio.codecs.includes(m.audioCodec)) out.push(`the audio codec ${m.audioCodec} is not ${L.audio.codecs.join(' or ')}`);
    if (m.audioSampleRate && m.audioSampleRate > L.audio.maxRate) out.push(`the audio sample rate ${m.audioSampleRate} Hz is over ${L.audio.maxRate} Hz`);
    if (m.audioChannels && m.audioChannels > L.audio.maxChannels) out.push(`the audio has ${m.audioChannels} channels; at most ${L.audio.maxChannels}`);
  }
  return out;
}

/** Caption rules a platform enforces by refusing the post (photo_site: hashtags and mentions). */
export function textProblems(platform: Platform, text: { title: string; description: string }): string[] {
  if (platform !== 'photo_site') return [];
  const caption = `${text.title}\n${text.description}`;
  const out: string[] = [];
  const tags = caption.match(/(^|\s)#[\p{L}\p{N}_]+/gu)?.length ?? 0;
  const mentions = caption.match(/(^|\s)@[\w.]+/gu)?.length ?? 0;
  if (tags > 30) out.push(`the caption has ${tags} hashtags; photo_site allows 30`);
  if (mentions > 20) out.push(`the caption mentions ${mentions} accounts; photo_site allows 20`);
  return out;
}

/** media_rejected naming every problem, or null when the clip fits `platform`. */
export function checkClipMedia(platform: Platform, media: ClipMedia, text: { title: string; description: string }): PublishError | null {
  const problems = [...mediaProblems(platform, media), ...textProblems(platform, text)];
  return problems.length ? new PublishError('media_rejected', `${platform} would refuse this clip: ${problems.join('; ')}`) : null;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
