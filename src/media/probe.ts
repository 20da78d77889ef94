// Stage 1b: ffprobe a file into MediaInfo. Throws MediaError with a readable reason for files that
// are not video, are truncated, or have no usable streams, and ShortsError('video_too_long') for a file
// longer than the service accepts. Reasons never name the file's path: on `serve` that path is the
// server's (…/scratch/<id>/source.mp4), and the caller knows which file it gave.
import { ShortsError } from '../errors.js';
import { stat } from 'node:fs/promises';
import { defaultMediaRunner } from './local-runner.js';
import { AbortedError, ProcessError } from './process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { MediaInfo } from '../domain/source.js';

/** Spec 4.2: the longest source accepted, 18000 seconds (5 hours); longer is 400 `video_too_long`. */
export const MAX_SOURCE_SECONDS = 18_000;

export class MediaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaError';
  }
}

interface ProbeStream {
  codec_type?: string; codec_name?: string; width?: number; height?: number;
  r_frame_rate?: string; avg_frame_rate?: string; duration?: string; bit_rate?: string; has_b_frames?: number;
  tags?: Record<string, string>; side_data_list?: { rotation?: number }[];
}
interface ProbeJson { streams?: ProbeStream[]; format?: { duration?: string; size?: string; format_name?: string; tags?: Record<string, string> } }

function rate(r: string | undefined): number {
  if (!r) return 0;
  const [n, d] = r.split('/').map(Number);
  if (!n || !d) return 0;
  return n / d;
}

/**
 * An MP4 whose index (moov) sits at the front still probes with its full duration after a cut
 * download; its streams' average bit rates (from that index) then promise more bytes than the file
 * holds. Allow generous slack for container overhead and rounding.
 */
function checkComplete(streams: ProbeStream[], duration: number, size: number): void {
  const rates = streams.map((s) => Number(s.bit_rate ?? NaN));
  if (!Number.isFinite(size) || rates.length === 0 || rates.some((r) => !Number.isFinite(r))) return;
  const expected = (rates.reduce((a, b) => a + b, 0) * duration) / 8;
  if (expected > 0 && size < expected * 0.9) {
    throw new MediaError(`the file is truncated: it holds ${Math.round((size / expected) * 100)}% of the media its index describes`);
  }
}

export interface ProbeResult { info: MediaInfo; containerTitle: string | null }

export interface ProbeOptions {
  /** Longer files throw ShortsError('video_too_long'); default MAX_SOURCE_SECONDS. */
  maxDurationSec?: number;
  /** Runs ffprobe; default defaultMediaRunner(). */
  media?: MediaRunner;
}

/** "9 h 16 min", "47 min", "12 s": a duration as a person reads it. */
export function spokenDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? `${h} h${m ? ` ${m} min` : ''}` : `${m} min`;
}

/**
 * ffprobe's last stderr line with the file's path taken out ("/srv/…/source.mp4: Invalid data found
 * when processing input" -> "invalid data found when processing input").
 */
function probeComplaint(stderr: string, file: string): string {
  const last = stderr.trim().split('\n').pop()?.trim() ?? '';
  const text = last.split(file).join('').replace(/^[\s:]+/, '').trim();
  return text ? text.charAt(0).toLowerCase() + text.slice(1) : 'ffprobe could not open it';
}

/**
 * ffprobe's JSON for a file, asked once per runner for the same file (path, size, modification time): the
 * request's check, the fetch stage's title, the probe stage and the face sampler all read one answer.
 */
async function probeJson(path: string, media: MediaRunner, signal?: AbortSignal): Promise<ProbeJson> {
  const st = await stat(path).catch(() => null);
  const read = async () => {
    try {
      const { stdout } = await media.run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path], { signal });
      return JSON.parse(stdout) as ProbeJson;
    } catch (e) {
      if (e instanceof ProcessError) throw new MediaError(`not a readable video file (${probeComplaint(e.stderr, path)})`);
      throw e;
    }
  };
  // Not a plain file (a URL, a pipe): nothing says it is unchanged, so it is asked every time.
  if (!st?.isFile()) return read();
  const key = `ffprobe\0${path}\0${st.size}\0${st.mtimeMs}`;
  try {
    return await media.once(key, read);
  } catch (e) {
    // Another job's cancelled probe of the same file is not this caller's answer: ask again.
    if (e instanceof AbortedError && !signal?.aborted) return media.once(key, read);
    throw e;
  }
}

export async function probeMedia(path: string, signal?: AbortSignal, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const json = await probeJson(path, opts.media ?? defaultMediaRunner(), signal);
  const streams = json.streams ?? [];
  // Cover art is a one-frame "video" stream; ignore it.
  const video = streams.find((s) => s.codec_type === 'video' && !['mjpeg', 'png', 'bmp'].includes(s.codec_name ?? ''));
  const audio = streams.find((s) => s.codec_type === 'audio');
  const duration = Number(json.format?.duration ?? video?.duration ?? audio?.duration ?? NaN);
  if (!video && !audio) throw new MediaError('the file has no audio or video streams');
  if (!Number.isFinite(duration) || duration <= 0) throw new MediaError('the file has no readable duration (truncated or not a video)');
  // The limit first: a file whose header claims more than the limit is refused for its length, the
  // rule a user can act on, before its index is trusted to judge completeness (a 2-second file whose
  // header claims 40,000 s would otherwise read as "truncated: it holds 0%").
  const max = opts.maxDurationSec ?? MAX_SOURCE_SECONDS;
  if (duration > max) {
    throw new ShortsError('video_too_long', `the video is ${spokenDuration(duration)} long (${Math.round(duration)} s); the limit is ${spokenDuration(max)} (${max} s)`,
      { durationSec: Math.round(duration), maxDurationSec: max });
  }
  checkComplete(streams, duration, Number(json.format?.size ?? NaN));
  const rotation = Math.abs(video?.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? Number(video?.tags?.rotate ?? 0));
  const swap = rotation === 90 || rotation === 270;
  const nominal = rate(video?.r_frame_rate);
  const average = rate(video?.avg_frame_rate);
  return {
    info: {
      durationSec: duration,
      hasVideo: Boolean(video),
      hasAudio: Boolean(audio),
      width: (swap ? video?.height : video?.width) ?? 0,
      height: (swap ? video?.width : video?.height) ?? 0,
      fps: average || nominal,
      variableFrameRate: Boolean(nominal && average && Math.abs(nominal - average) / nominal > 0.01),
      videoCodec: video?.codec_name ?? null,
      ...(video ? { bFrames: (video.has_b_frames ?? 1) > 0 } : {}),
      audioCodec: audio?.codec_name ?? null,
      formatName: json.format?.format_name ?? '',
    },
    containerTitle: json.format?.tags?.title ?? json.format?.tags?.TITLE ?? null,
  };
}
