// The audio Whisper hears: just the requested range of the first audio stream, as 16 kHz mono PCM.
// Shared by transcription and the translate task (whisper-translate.ts).
import { mediaBinaries } from '../media/binaries.js';
import { ProcessError, lastLines, runProcess } from '../media/process.js';
import { PipelineError } from '../errors.js';
import type { TimeRange } from '../domain/time.js';

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

/** Writes the speech WAV of `range` for Whisper; a failure is a PipelineError of `stage` a user can read. */
export async function writeSpeechWav(mediaPath: string, range: TimeRange, wavPath: string, stage: string, signal?: AbortSignal): Promise<void> {
  try {
    await runProcess(mediaBinaries().ffmpeg, extractAudioArgs(mediaPath, range, wavPath), { signal });
  } catch (e) {
    if (!(e instanceof ProcessError)) throw e;
    if (/matches no streams/i.test(e.stderr)) {
      throw new PipelineError(stage, 'the video has no audio track, so there is no speech to transcribe', { cause: e });
    }
    throw new PipelineError(stage, `could not read the audio of the video (${lastLines(e.stderr, 1) || 'ffmpeg failed'})`, { cause: e });
  }
}
