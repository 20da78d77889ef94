// The audio Whisper hears: just the requested range of the first audio stream, as 16 kHz mono PCM.
// Shared by transcription and the translate task (whisper-translate.ts).
import { open, rm } from 'node:fs/promises';
import { ProcessError, lastLines } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { PipelineError, type PipelineStage } from '../../errors.js';
import type { TimeRange } from '../../domain/time.js';

export const SAMPLE_RATE = 16_000;

/** ffmpeg arguments that decode just `range` of the first audio stream into 16 kHz mono PCM for Whisper. */
export function extractAudioArgs(mediaPath: string, range: TimeRange, wavPath: string): string[] {
  const duration = Math.max(0, range.end - range.start);
  return [
    '-nostdin', '-v', 'error', '-y',
    // Before -i: seek on the input, so a 10 s range of a 2 h file decodes 10 s (audio seeking is exact).
    '-ss', range.start.toFixed(3), '-t', duration.toFixed(3), '-i', mediaPath,
    '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'pcm_s16le', wavPath,
  ];
}

/** The PCM samples of a 16-bit mono WAV (ffmpeg may put a LIST chunk before "data"). */
export function wavSamples(wav: Buffer): Int16Array {
  let at = 12;
  while (at + 8 <= wav.length) {
    const id = wav.toString('latin1', at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === 'data') {
      const bytes = Math.min(size, wav.length - at - 8) & ~1;
      // Copy: the Buffer's offset in its pool need not be 2-byte aligned.
      return new Int16Array(new Uint8Array(wav.subarray(at + 8, at + 8 + bytes)).buffer);
    }
    at += 8 + size + (size & 1);
  }
  return new Int16Array(0);
}

/** A 16-bit mono PCM WAV of `samples` at `rate` (a stretch cut from a speech WAV for Whisper to hear alone). */
export function wavFile(samples: Int16Array, rate = SAMPLE_RATE): Buffer {
  const header = Buffer.alloc(44);
  const bytes = samples.length * 2;
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + bytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(bytes, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, bytes)]);
}

/** Writes the speech WAV of `range` for Whisper; a failure is a PipelineError of `stage` a user can read. */
export async function writeSpeechWav(mediaPath: string, range: TimeRange, wavPath: string, stage: PipelineStage, media: MediaRunner, signal?: AbortSignal): Promise<void> {
  try {
    await media.run('ffmpeg', extractAudioArgs(mediaPath, range, wavPath), { signal });
  } catch (e) {
    if (!(e instanceof ProcessError)) throw e;
    if (/matches no streams/i.test(e.stderr)) {
      throw new PipelineError(stage, 'the video has no audio track, so there is no speech to transcribe', { cause: e });
    }
    throw new PipelineError(stage, `could not read the audio of the video (${lastLines(e.stderr, 1) || 'ffmpeg failed'})`, { cause: e });
  }
}

/** Where a WAV's samples start, from its first bytes (ffmpeg may put a LIST chunk before "data"); null if not found there. */
function wavDataOffset(head: Buffer): number | null {
  let at = 12;
  while (at + 8 <= head.length) {
    if (head.toString('latin1', at, at + 4) === 'data') return at + 8;
    const size = head.readUInt32LE(at + 4);
    at += 8 + size + (size & 1);
  }
  return null;
}

/**
 * The speech audio of one range (16 kHz mono, a WAV file), decoded by one ffmpeg for everything in a job
 * that listens to it: the recogniser reads the file, word timing its samples, the clip edges windows of
 * it (before issue 22 each clip edge decoded its own few seconds).
 */
export class RangeAudio {
  private made: Promise<string> | null = null;

  constructor(readonly mediaPath: string, readonly range: TimeRange, private readonly wavPath: string, private readonly media: MediaRunner) {}

  /** The WAV, decoded on the first call; a failed decode is not kept, so the next call tries again. */
  file(stage: PipelineStage, signal?: AbortSignal): Promise<string> {
    this.made ??= writeSpeechWav(this.mediaPath, this.range, this.wavPath, stage, this.media, signal).then(() => this.wavPath);
    this.made.catch(() => { this.made = null; });
    return this.made;
  }

  /** Deletes the WAV (the stages that read it are done); a later call decodes again. */
  async remove(): Promise<void> {
    const made = this.made;
    this.made = null;
    if (made) await made.catch(() => undefined);
    await rm(this.wavPath, { force: true });
  }

  /** Whether it covers `range` exactly (a transcriber asked for another range decodes its own). */
  covers(range: TimeRange): boolean {
    return range.start === this.range.start && range.end === this.range.end;
  }

  /**
   * The samples of `window` (source seconds, clamped to the range), read from the file without decoding
   * again; empty past the end of the audio.
   */
  async window(window: TimeRange, stage: PipelineStage, signal?: AbortSignal): Promise<Int16Array> {
    const fh = await open(await this.file(stage, signal), 'r');
    try {
      const head = Buffer.alloc(4096);
      const { bytesRead } = await fh.read(head, 0, head.length, 0);
      const data = wavDataOffset(head.subarray(0, bytesRead));
      if (data === null) return new Int16Array(0);
      const first = Math.max(0, Math.round((window.start - this.range.start) * SAMPLE_RATE));
      const count = Math.max(0, Math.round((Math.min(window.end, this.range.end) - Math.max(window.start, this.range.start)) * SAMPLE_RATE));
      const buf = Buffer.alloc(count * 2);
      const got = (await fh.read(buf, 0, buf.length, data + first * 2)).bytesRead & ~1;
      return new Int16Array(new Uint8Array(buf.subarray(0, got)).buffer);
    } finally {
      await fh.close();
    }
  }
}
